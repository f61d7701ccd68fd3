// Route handler: PUT /api/v1/resellers/me/pppoe/subscribers/{id}.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { changeSubscriberOf } from './pppoe.js';
import {
  PppoeIdParams,
  PppoeQuery,
  PppoeSubscriberSchema,
  PppoeSubscriberUpdateBody,
} from './pppoe-schemas.js';

/** Changes a PPPoE subscriber: details, plan, hotspots, address, credentials, suspended. */
export const handler = sessionEndpoint(
  'PUT /api/v1/resellers/me/pppoe/subscribers/{id}',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_MSISDN_INVALID', 'ERR_USERNAME_TAKEN', 'ERR_CONFLICT'],
    params: PppoeIdParams,
    query: PppoeQuery,
    body: PppoeSubscriberUpdateBody,
    ok: PppoeSubscriberSchema,
  },
  async ({ params, query, body, principal }) =>
    json(200, await changeSubscriberOf(principal, query.reseller_id, params.id, body)),
);
