// GET /api/v1/payments/{id}/status: Status of a payment (the paying subscriber or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { IdParams, PaymentStatusResponse } from './payment-schemas.js';
import { paymentStatus } from './payments/status.js';

/** The paying subscriber or an admin; anyone else gets 404 (existence does not leak). */
export const handler = sessionEndpoint(
  'GET /api/v1/payments/{id}/status',
  { errors: ['ERR_NOT_FOUND'], params: IdParams, ok: PaymentStatusResponse },
  async ({ params, principal }) => {
    return json(200, await paymentStatus(params.id, principal));
  },
);
