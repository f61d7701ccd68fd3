// POST /api/v1/agents/{id}/allot: Give an agent float (FCFA) or a number of codes of a forfait (its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { give } from './handovers.js';
import { AgentAllotBody, AgentIdParams, HandoverAnswer } from './schemas.js';

/** Float in FCFA, or codes of a forfait, given to an agent: added to what it holds. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/allot',
  { errors: ['ERR_NOT_FOUND'], params: AgentIdParams, body: AgentAllotBody, ok: HandoverAnswer },
  async ({ params, body, principal }) => json(200, await give(principal, params.id, body)),
);
