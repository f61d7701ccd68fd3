// GET /api/v1/agents/{id}/sales: An agent's sales of a span, newest first (the agent itself, its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { salesOf } from './agent-reports.js';
import { AgentIdParams, AgentSalesQuery, AgentSalesResponse } from './schemas.js';

/** An agent's sales between two days (UTC), newest first; with `q`, those of a code or a buyer's number. */
export const handler = sessionEndpoint(
  'GET /api/v1/agents/{id}/sales',
  { errors: ['ERR_NOT_FOUND'], params: AgentIdParams, query: AgentSalesQuery, ok: AgentSalesResponse },
  async ({ params, query, principal }) =>
    json(200, await salesOf(principal, params.id, query.from, query.to, query.limit, query.q)),
);
