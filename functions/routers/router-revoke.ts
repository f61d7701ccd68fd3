// POST /api/v1/routers/{router_id}/revoke: Revoke a router's credentials: refused by the API at once, dropped by FreeRADIUS within a minute

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { revoke, routerFor } from './routers.js';
import { RouterParams, RouterView } from './schemas.js';

export const handler = sessionEndpoint(
  'POST /api/v1/routers/{router_id}/revoke',
  { errors: ['ERR_NOT_FOUND'], params: RouterParams, ok: RouterView },
  async ({ params, principal }) => json(200, await revoke(await routerFor(principal, params.router_id))),
);
