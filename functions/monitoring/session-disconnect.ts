// POST /api/v1/sessions/{id}/disconnect: Cut a live session: a Disconnect-Request goes to its router through the RADIUS front

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { disconnectByOperator } from '../radius/disconnect.js';
import { SessionIdParams, SessionViewSchema } from './schemas.js';

/**
 * 202: the Disconnect-Request is recorded; the RADIUS front sends it and `GET /sessions/{id}`
 * shows how it went. Asking again while one is under way answers the same request.
 */
export const handler = sessionEndpoint(
  'POST /api/v1/sessions/{id}/disconnect',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT'],
    params: SessionIdParams,
    response: { status: 202, schema: SessionViewSchema },
  },
  async ({ principal, params }) => json(202, await disconnectByOperator(principal, params.id, clock.now())),
);
