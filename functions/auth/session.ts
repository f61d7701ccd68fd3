import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { SessionResponse } from './schemas.js';
import { sessionEndpoint } from './session-endpoint.js';

/** The token was checked by the auth middleware; this only reports what it says. */
export const handler = sessionEndpoint(
  'GET /api/v1/auth/session',
  { ok: SessionResponse },
  async ({ principal }) => {
    const exp = principal.exp ?? clock.nowSeconds();
    return json(200, {
      valid: true,
      subscriber_ref: principal.ref,
      expires_at: clock.iso(exp * 1000),
      role: principal.role,
    });
  },
);
