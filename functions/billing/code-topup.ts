// POST /api/v1/access/{code}/topups: Top up a live code with a forfait's time and data, paid in cash (its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { CodeParams } from './code-schemas.js';
import { TopupBody, TopupResponse } from './topup-schemas.js';
import { topUpCode } from './topups.js';

/** A reseller adds a forfait's time and data to one of its live codes (a cash sale in its books). */
export const handler = sessionEndpoint(
  'POST /api/v1/access/{code}/topups',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CODE_NOT_LIVE', 'ERR_UNAVAILABLE'],
    params: CodeParams,
    body: TopupBody,
    created: TopupResponse,
  },
  async ({ principal, params, body }) => json(201, await topUpCode(principal, params.code, body.forfait_id)),
);
