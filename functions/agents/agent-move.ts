// POST /api/v1/agents/{id}/move: Move float or codes from an agent to another of the reseller's agents, or back to the reseller

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { move } from './handovers.js';
import { AgentIdParams, AgentMoveBody, HandoverAnswer } from './schemas.js';

/** Float or codes moved from an agent to another of the reseller's agents, or back to the reseller. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/move',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_AGENT_FLOAT_EXHAUSTED', 'ERR_AGENT_STOCK_EXHAUSTED', 'ERR_UNAVAILABLE'],
    params: AgentIdParams,
    body: AgentMoveBody,
    ok: HandoverAnswer,
  },
  async ({ params, body, principal }) => json(200, await move(principal, params.id, body)),
);
