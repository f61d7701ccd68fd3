// GET /api/v1/sessions/{id}: A RADIUS session and the state of its disconnect (owning reseller or admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { sessionView } from '../radius/disconnect.js';
import { SessionIdParams, SessionViewSchema } from './schemas.js';

/** The owning reseller or an admin; anyone else gets 404 (existence does not leak). */
export const handler = sessionEndpoint(
  'GET /api/v1/sessions/{id}',
  { errors: ['ERR_NOT_FOUND'], params: SessionIdParams, ok: SessionViewSchema },
  async ({ principal, params }) => json(200, await sessionView(principal, params.id)),
);
