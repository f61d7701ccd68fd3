// GET /api/v1/routers/{router_id}: One router (never its key or secret)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { routerFor, routerView } from './routers.js';
import { RouterParams, RouterView } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/routers/{router_id}',
  { errors: ['ERR_NOT_FOUND'], params: RouterParams, ok: RouterView },
  async ({ params, principal }) => json(200, routerView(await routerFor(principal, params.router_id))),
);
