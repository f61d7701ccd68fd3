// Route handler: GET /api/v1/resellers/me/pppoe/subscribers/{id}.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { subscriber } from './pppoe.js';
import { PppoeIdParams, PppoeQuery, PppoeSubscriberDetail } from './pppoe-schemas.js';

/** One PPPoE subscriber with its credentials (the card its reseller prints). */
export const handler = sessionEndpoint(
  'GET /api/v1/resellers/me/pppoe/subscribers/{id}',
  { errors: ['ERR_NOT_FOUND'], params: PppoeIdParams, query: PppoeQuery, ok: PppoeSubscriberDetail },
  async ({ params, query, principal }) =>
    json(200, await subscriber(principal, query.reseller_id, params.id)),
);
