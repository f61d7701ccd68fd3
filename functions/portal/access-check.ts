// POST /api/v1/access/check: What an access code still allows at a hotspot (the captive portal, before logging in)

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { checkCode } from './access.js';
import { CodeCheckBody, CodeCheckResult } from './schemas.js';

/** Public: the captive portal checks a typed code before posting it to the router. */
export const handler = endpoint(
  'POST /api/v1/access/check',
  { body: CodeCheckBody, ok: CodeCheckResult },
  async ({ body, event }) =>
    json(
      200,
      await checkCode(body.nas_id, body.code, clock.now(), event.requestContext?.http?.sourceIp ?? 'unknown'),
    ),
);
