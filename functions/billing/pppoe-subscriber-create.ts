// Route handler: POST /api/v1/resellers/me/pppoe/subscribers.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { makeSubscriber } from './pppoe.js';
import { PppoeQuery, PppoeSubscriberCreateBody, PppoeSubscriberSchema } from './pppoe-schemas.js';

/** A new PPPoE subscriber; its credentials generated unless given, answered once here and by GET. */
export const handler = sessionEndpoint(
  'POST /api/v1/resellers/me/pppoe/subscribers',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_MSISDN_INVALID', 'ERR_USERNAME_TAKEN', 'ERR_CONFLICT'],
    query: PppoeQuery,
    body: PppoeSubscriberCreateBody,
    created: PppoeSubscriberSchema,
  },
  async ({ query, body, principal }) => json(201, await makeSubscriber(principal, query.reseller_id, body)),
);
