// GET /api/v1/billing/summary: A reseller's month: total, split and sessions

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { SummaryQuery, SummaryResponse } from './revenue-schemas.js';
import { billingSummary } from './summary.js';

/** One reseller's month: total, split and sessions, from its aggregate. */
export const handler = sessionEndpoint(
  'GET /api/v1/billing/summary',
  { query: SummaryQuery, ok: SummaryResponse },
  async ({ query, principal }) => {
    return json(200, await billingSummary(principal, query.reseller_id, query.month));
  },
);
