// `POST /api/v1/access/pass`: a signed-in subscriber's login pass for one device and code at a hotspot.

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { loginPass } from './login-pass.js';
import { DeviceBody, LoginPassResult } from './schemas.js';

/**
 * A signed-in subscriber's pass for one device at one hotspot: its right card gets in there
 * while wrong codes flood the hotspot (functions/portal/login-pass.ts).
 */
export const handler = sessionEndpoint(
  'POST /api/v1/access/pass',
  { body: DeviceBody, ok: LoginPassResult, errors: ['ERR_NOT_FOUND', 'ERR_RATE_LIMITED'] },
  async ({ body, principal }) => json(200, await loginPass(principal.sub, body, clock.now())),
);
