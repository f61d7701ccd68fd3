// POST /api/v1/agents/{id}/sales/{code}/undo: undo an agent's sale of the last minutes whose code was never used

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { undoSale } from './sale-undo.js';
import { AgentSaleParams, AgentSaleUndoResponse } from './schemas.js';

/** Undoes an agent's sale of the last minutes whose code was never used: float or stock back, code revoked. */
export const handler = sessionEndpoint(
  'POST /api/v1/agents/{id}/sales/{code}/undo',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_UNDO_TOO_LATE', 'ERR_CODE_IN_USE', 'ERR_CONFLICT', 'ERR_UNAVAILABLE'],
    params: AgentSaleParams,
    ok: AgentSaleUndoResponse,
  },
  async ({ params, principal }) => {
    const { answer, facts } = await undoSale(principal, params.id, params.code);
    return { ...json(200, answer), facts };
  },
);
