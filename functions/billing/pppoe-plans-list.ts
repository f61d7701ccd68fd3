// Route handler: GET /api/v1/resellers/me/pppoe/plans.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { plans } from './pppoe.js';
import { PppoePlansList, PppoeQuery } from './pppoe-schemas.js';

/** A reseller's PPPoE plans (hidden ones too). */
export const handler = sessionEndpoint(
  'GET /api/v1/resellers/me/pppoe/plans',
  { query: PppoeQuery, ok: PppoePlansList },
  async ({ query, principal }) => json(200, await plans(principal, query.reseller_id)),
);
