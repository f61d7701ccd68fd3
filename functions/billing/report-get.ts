// GET /api/v1/billing/report: A reseller's sales over up to 366 days, by hotspot, forfait, agent and channel

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { json } from '../core/http.js';
import { salesReport } from './report.js';
import { ReportQuery, ReportResponse } from './report-schemas.js';

/** A reseller's sales over any range of up to a year, by hotspot, forfait, agent and channel. */
export const handler = sessionEndpoint(
  'GET /api/v1/billing/report',
  { query: ReportQuery, ok: ReportResponse },
  async ({ query, principal }) =>
    json(200, await salesReport(resellerInScope(principal, query.reseller_id), query.from, query.to)),
);
