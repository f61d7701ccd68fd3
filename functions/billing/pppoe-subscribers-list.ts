// Route handler: GET /api/v1/resellers/me/pppoe/subscribers.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { subscribers } from './pppoe.js';
import { PppoeQuery, PppoeSubscribersList } from './pppoe-schemas.js';

/** A reseller's PPPoE subscribers with their state (no passwords). */
export const handler = sessionEndpoint(
  'GET /api/v1/resellers/me/pppoe/subscribers',
  { query: PppoeQuery, ok: PppoeSubscribersList },
  async ({ query, principal }) => json(200, await subscribers(principal, query.reseller_id)),
);
