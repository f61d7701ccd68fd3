// GET /api/v1/network/sites/{reseller_id}: List a reseller's sites

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { SitesList, SitesParams } from './schemas.js';
import { sitesOf } from './sites.js';

export const handler = sessionEndpoint(
  'GET /api/v1/network/sites/{reseller_id}',
  { errors: ['ERR_NOT_FOUND'], params: SitesParams, ok: SitesList },
  async ({ params, principal }) => {
    const items = await sitesOf(principal, params.reseller_id);
    return json(200, { items, total: items.length });
  },
);
