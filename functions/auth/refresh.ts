// POST /api/v1/auth/refresh: a console session's new token pair without an SMS

import { endpoint, json } from '../core/http.js';
import { refreshConsoleSession } from './console-sessions.js';
import { RefreshBody, RefreshResponse } from './schemas.js';

/** A console session's new token pair, without an SMS, while the session is used (401 once over). */
export const handler = endpoint(
  'POST /api/v1/auth/refresh',
  { errors: ['ERR_UNAUTHENTICATED', 'ERR_UNAVAILABLE'], body: RefreshBody, ok: RefreshResponse },
  async ({ body }) =>
    json(200, await refreshConsoleSession(body.refresh_token, { fork: body.fork === true })),
);
