// POST /api/v1/payments/{id}/resend-code: Text a paid access code to its buyer again (owning reseller or admin; at most 3 times)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { resendCode } from './paid-not-connected.js';
import { IdParams, ResendCodeResponse } from './payment-schemas.js';

/** Texts a paid code to its buyer again (owning reseller or admin; at most 3 times a payment). */
export const handler = sessionEndpoint(
  'POST /api/v1/payments/{id}/resend-code',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_RATE_LIMITED', 'ERR_UNAVAILABLE'],
    params: IdParams,
    ok: ResendCodeResponse,
  },
  async ({ params, principal }) => json(200, await resendCode(principal, params.id)),
);
