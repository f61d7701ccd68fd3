// Route handler: POST /api/v1/resellers/me/pppoe/plans.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { makePlan } from './pppoe.js';
import { PppoePlanCreateBody, PppoePlanSchema, PppoeQuery } from './pppoe-schemas.js';

/** A reseller makes a PPPoE plan: price, period, speeds, fair-use step, devices, grace days. */
export const handler = sessionEndpoint(
  'POST /api/v1/resellers/me/pppoe/plans',
  { query: PppoeQuery, body: PppoePlanCreateBody, created: PppoePlanSchema },
  async ({ query, body, principal }) => json(201, await makePlan(principal, query.reseller_id, body)),
);
