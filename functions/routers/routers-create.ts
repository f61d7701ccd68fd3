// POST /api/v1/routers: Register a router for some of the reseller's NAS ids: its RadSec certificate or UDP secret, shown once

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { registerFor } from './routers.js';
import { RouterBody, RouterCredentials } from './schemas.js';
import { withScript } from './setup-script.js';

export const handler = sessionEndpoint(
  'POST /api/v1/routers',
  { errors: ['ERR_CONFLICT'], body: RouterBody, created: RouterCredentials },
  async ({ body, principal }) => json(201, await withScript(await registerFor(principal, body))),
);
