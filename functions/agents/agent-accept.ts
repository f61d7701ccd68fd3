// POST /api/v1/agents/{id}/accept: The invited number's holder accepts: its account becomes the agent's (answers an agent's session token)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { acceptInvitation } from './agents.js';
import { AgentAcceptResponse, AgentIdParams } from './schemas.js';

/** The invited number, logged in as a subscriber, accepts; anyone else gets 404. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/accept',
  { errors: ['ERR_NOT_FOUND'], params: AgentIdParams, ok: AgentAcceptResponse },
  async ({ params, principal }) => json(200, await acceptInvitation(principal, params.id)),
);
