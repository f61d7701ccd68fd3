import { endpoint, json } from '../core/http.js';
import { SiteBody, SiteResponse } from './schemas.js';
import { addSite } from './sites.js';

export const handler = endpoint(
  'POST /api/v1/network/sites',
  { body: SiteBody, response: { status: 201, schema: SiteResponse } },
  async ({ body, principal }) => json(201, await addSite(principal, body)),
);
