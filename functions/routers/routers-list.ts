// GET /api/v1/routers: A reseller's routers (never their keys or secrets)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { json } from '../core/http.js';
import { routersOf } from './routers.js';
import { RoutersList, RoutersQuery } from './schemas.js';

export const handler = sessionEndpoint(
  'GET /api/v1/routers',
  { query: RoutersQuery, ok: RoutersList },
  async ({ query, principal }) => {
    const items = await routersOf(resellerInScope(principal, query.reseller_id));
    return json(200, { items, total: items.length });
  },
);
