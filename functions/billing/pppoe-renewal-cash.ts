// Route handler: POST /api/v1/resellers/me/pppoe/subscribers/{id}/renewals.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { renewByCash } from './pppoe-renewals.js';
import { PppoeCashRenewalBody, PppoeIdParams, PppoeQuery, PppoeRenewalSchema } from './pppoe-schemas.js';

/** A period paid in cash at the console: the one named, if it is the next (else 409 ERR_PERIOD_SOLD). */
export const handler = sessionEndpoint(
  'POST /api/v1/resellers/me/pppoe/subscribers/{id}/renewals',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_PERIOD_SOLD'],
    params: PppoeIdParams,
    query: PppoeQuery,
    body: PppoeCashRenewalBody,
    created: PppoeRenewalSchema,
  },
  async ({ params, query, body, principal }) =>
    json(201, await renewByCash(principal, query.reseller_id, params.id, body.period)),
);
