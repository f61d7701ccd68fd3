// GET /api/v1/agents/{id}/sales/export: An agent's sales of a span as CSV

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { salesCsv } from './agent-reports.js';
import { AgentExportQuery, AgentIdParams } from './schemas.js';

/** An agent's sales of a span as CSV (price, commission and what each sale owes the reseller). */
export const handler = sessionEndpoint(
  'GET /api/v1/agents/{id}/sales/export',
  {
    errors: ['ERR_NOT_FOUND'],
    params: AgentIdParams,
    query: AgentExportQuery,
    response: { status: 200, contentType: 'text/csv' },
  },
  async ({ params, query, principal }) => ({
    status: 200,
    raw: await salesCsv(principal, params.id, query.from, query.to, query.lang),
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="agent-sales-${query.from}-${query.to}.csv"`,
    },
  }),
);
