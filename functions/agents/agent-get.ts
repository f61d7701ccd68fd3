// GET /api/v1/agents/{id}: An agent's statement: balance, today and this month (the agent itself, its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { statement } from './agent-reports.js';
import { AgentIdParams, AgentStatementResponse } from './schemas.js';

/** An agent's balance, day and month: the agent's "Mon solde", its reseller's view of it. */
export const handler = sessionEndpoint(
  'GET /api/v1/agents/{id}',
  { errors: ['ERR_NOT_FOUND'], params: AgentIdParams, ok: AgentStatementResponse },
  async ({ params, principal }) => json(200, await statement(principal, params.id)),
);
