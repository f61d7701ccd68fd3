// Route handler: PUT /api/v1/resellers/me/pppoe/plans/{id}.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { changePlan } from './pppoe.js';
import { PppoeIdParams, PppoePlanSchema, PppoePlanUpdateBody, PppoeQuery } from './pppoe-schemas.js';

/** Changes or hides a PPPoE plan; periods sold keep the price they were sold at. */
export const handler = sessionEndpoint(
  'PUT /api/v1/resellers/me/pppoe/plans/{id}',
  {
    errors: ['ERR_NOT_FOUND'],
    params: PppoeIdParams,
    query: PppoeQuery,
    body: PppoePlanUpdateBody,
    ok: PppoePlanSchema,
  },
  async ({ params, query, body, principal }) =>
    json(200, await changePlan(principal, query.reseller_id, params.id, body)),
);
