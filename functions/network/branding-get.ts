// GET /api/v1/branding/{nas_id}: Captive-portal branding of a hotspot (?view=portal: four fields)

import { endpoint, json } from '../core/http.js';
import { brandingOf, etagMatches, etagOf, portalView } from './branding.js';
import { BrandingParams, BrandingQuery, BrandingResponse } from './schemas.js';

/** Read on every captive-portal hit: cacheable for a minute, revalidated by ETag. */
export const handler = endpoint(
  'GET /api/v1/branding/{nas_id}',
  {
    errors: ['ERR_NOT_FOUND'],
    also: [{ status: 304, description: 'Not modified (If-None-Match)' }],
    params: BrandingParams,
    query: BrandingQuery,
    ok: BrandingResponse,
  },
  async ({ params, query, headers }) => {
    const full = await brandingOf(params.nas_id);
    const body = query.view === 'portal' ? portalView(full) : full;
    const etag = etagOf(body);
    const cache = { 'cache-control': 'public, max-age=60', etag };
    if (etagMatches(headers['if-none-match'], etag)) return { status: 304, raw: '', headers: cache };
    return json(200, body, cache);
  },
);
