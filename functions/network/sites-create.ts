// POST /api/v1/network/sites: Register a site of a multi-site reseller

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { SiteBody, SiteResponse } from './schemas.js';
import { addSite } from './sites.js';

export const handler = sessionEndpoint(
  'POST /api/v1/network/sites',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_DUPLICATE_NAS_ID'],
    body: SiteBody,
    created: SiteResponse,
  },
  async ({ body, principal }) => json(201, await addSite(principal, body)),
);
