// POST /api/v1/access/{code}/revoke: Revoke an access code: refused from now on, its live sessions disconnected

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { revokeCode } from '../radius/disconnect.js';
import { CodeParams, RevokeResult } from './code-schemas.js';

/** Idempotent: revoking again answers the first revocation's time and cuts what is still open. */
export const handler = sessionEndpoint(
  'POST /api/v1/access/{code}/revoke',
  { errors: ['ERR_NOT_FOUND'], params: CodeParams, ok: RevokeResult },
  async ({ principal, params }) => json(200, await revokeCode(principal, params.code, clock.now())),
);
