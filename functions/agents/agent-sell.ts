// POST /api/v1/agents/{id}/sales: An agent sells a code for cash, from its stock or float (the agent itself; optionally texted)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { sell } from './agents.js';
import { AgentIdParams, AgentSaleBody, AgentSaleResponse } from './schemas.js';

/** An agent sells one code for cash: shown, printed on a ticket, or texted to the buyer. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/sales',
  {
    errors: [
      'ERR_NOT_FOUND',
      'ERR_MSISDN_INVALID',
      'ERR_AGENT_FLOAT_EXHAUSTED',
      'ERR_AGENT_STOCK_EXHAUSTED',
      'ERR_UNAVAILABLE',
    ],
    params: AgentIdParams,
    body: AgentSaleBody,
    created: AgentSaleResponse,
  },
  async ({ params, body, principal }) => json(201, await sell(principal, params.id, body)),
);
