// POST /api/v1/routers/{router_id}/credentials: New credentials for a router (shown once); its previous certificate or secret stops working

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { rotate, routerFor } from './routers.js';
import { RouterCredentials, RouterParams } from './schemas.js';
import { withScript } from './setup-script.js';

export const handler = sessionEndpoint(
  'POST /api/v1/routers/{router_id}/credentials',
  { errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT'], params: RouterParams, created: RouterCredentials },
  async ({ params, principal }) =>
    json(201, await withScript(await rotate(await routerFor(principal, params.router_id)))),
);
