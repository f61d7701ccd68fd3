// PUT /api/v1/agents/{id}: Change an agent's name, commission rate or hotspots (its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { changeTerms } from './agents.js';
import { AgentIdParams, AgentSchema, AgentTermsBody } from './schemas.js';

/** Name, commission rate, hotspots; sales already made keep the commission they were made at. */
export const handler = sessionEndpoint(
  'PUT /api/v1/agents/{id}',
  { errors: ['ERR_NOT_FOUND'], params: AgentIdParams, body: AgentTermsBody, ok: AgentSchema },
  async ({ params, body, principal }) => json(200, await changeTerms(principal, params.id, body)),
);
