// POST /api/v1/agents/{id}/topups: An agent tops up a guest's live code for cash, from its stock or float (the agent itself)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { agentTopUp } from './agent-topup.js';
import { AgentIdParams, AgentTopupBody, AgentTopupResponse } from './schemas.js';

/** An agent adds a forfait's time and data to a guest's live code, for cash (a sale of the agent). */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/topups',
  {
    errors: [
      'ERR_NOT_FOUND',
      'ERR_CODE_NOT_LIVE',
      'ERR_AGENT_FLOAT_EXHAUSTED',
      'ERR_AGENT_STOCK_EXHAUSTED',
      'ERR_UNAVAILABLE',
    ],
    params: AgentIdParams,
    body: AgentTopupBody,
    created: AgentTopupResponse,
  },
  async ({ params, body, principal }) => json(201, await agentTopUp(principal, params.id, body)),
);
