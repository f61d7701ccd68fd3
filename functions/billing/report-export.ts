// GET /api/v1/billing/report/export: The same sales report as CSV

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { reportCsv, salesReport } from './report.js';
import { ReportQuery } from './report-schemas.js';

/** The sales report as CSV (the same figures as `GET /api/v1/billing/report`). */
export const handler = sessionEndpoint(
  'GET /api/v1/billing/report/export',
  { query: ReportQuery, response: { status: 200, contentType: 'text/csv' } },
  async ({ query, principal }) => {
    const report = await salesReport(resellerInScope(principal, query.reseller_id), query.from, query.to);
    return {
      status: 200,
      raw: reportCsv(report, query.lang ?? 'fr'),
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="ventes-${query.from}-${query.to}.csv"`,
      },
    };
  },
);
