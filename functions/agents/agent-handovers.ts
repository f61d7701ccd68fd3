// GET /api/v1/agents/{id}/handovers: An agent's handovers: float and codes given or moved, cash received (the agent itself, its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { history } from './handovers.js';
import { AgentIdParams, HandoversResponse } from './schemas.js';

/** An agent's handovers (float, codes, cash, moves), newest first. */
export const handler = sessionEndpoint(
  'GET /api/v1/agents/{id}/handovers',
  { errors: ['ERR_NOT_FOUND'], params: AgentIdParams, ok: HandoversResponse },
  async ({ params, principal }) => json(200, await history(principal, params.id)),
);
