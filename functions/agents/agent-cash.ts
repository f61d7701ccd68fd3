// POST /api/v1/agents/{id}/cash: Record cash an agent handed to its reseller (its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { receiveCash } from './handovers.js';
import { AgentCashBody, AgentIdParams, HandoverAnswer } from './schemas.js';

/** The reseller records cash its agent handed over; never more than the agent owes. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/cash',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_AGENT_CASH_OVER_OWED', 'ERR_UNAVAILABLE'],
    params: AgentIdParams,
    body: AgentCashBody,
    ok: HandoverAnswer,
  },
  async ({ params, body, principal }) => json(200, await receiveCash(principal, params.id, body.amount_fcfa)),
);
