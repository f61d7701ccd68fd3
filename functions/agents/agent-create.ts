// POST /api/v1/agents: Invite an agent: a phone number that will sell the reseller's codes for cash once it accepts (owning reseller or admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { addAgent } from './agents.js';
import { AgentCreateBody, AgentSchema } from './schemas.js';

/** A reseller invites an agent (an admin names the reseller): one SMS of its budgets (429 past one); the number accepts, then logs in as an agent. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_MSISDN_INVALID', 'ERR_RATE_LIMITED'],
    body: AgentCreateBody,
    created: AgentSchema,
  },
  async ({ body, principal }) => json(201, await addAgent(principal, body)),
);
