// POST /api/v1/agents/{id}/handovers/{handover_id}/undo: Undo a handover of the last five minutes (its reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { undo } from './handovers.js';
import { HandoverAnswer, HandoverParams } from './schemas.js';

/** Undoes a handover of the last minutes: the agent's balances as before it. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/handovers/{handover_id}/undo',
  {
    errors: [
      'ERR_NOT_FOUND',
      'ERR_UNDO_TOO_LATE',
      'ERR_AGENT_FLOAT_EXHAUSTED',
      'ERR_AGENT_STOCK_EXHAUSTED',
      'ERR_CONFLICT',
      'ERR_UNAVAILABLE',
    ],
    params: HandoverParams,
    ok: HandoverAnswer,
  },
  async ({ params, principal }) => json(200, await undo(principal, params.id, params.handover_id)),
);
