// GET /api/v1/forfaits: List the platform's forfaits on sale (with nas_id: and, first, that hotspot's own)

import { endpoint, json } from '../core/http.js';
import { pageOf } from '../core/schemas.js';
import { listForfaitsOnSale, ownForfaitsAt } from '../store/forfaits.js';
import { getNas } from '../store/nas.js';
import { ForfaitsPage, ForfaitsQuery } from './forfait-schemas.js';

/**
 * The platform's forfaits on sale, by price (the API's contract). With `nas_id`, what that
 * hotspot's portal offers: its reseller's own forfaits on sale there first, in the reseller's
 * order, then the platform's. An unknown hotspot gets the platform's only.
 */
export const handler = endpoint(
  'GET /api/v1/forfaits',
  { query: ForfaitsQuery, ok: ForfaitsPage },
  async ({ query }) => {
    const nas = query.nas_id ? await getNas(query.nas_id) : undefined;
    const [own, platform] = await Promise.all([
      nas ? ownForfaitsAt(nas.reseller_id, nas.nas_id) : [],
      listForfaitsOnSale(),
    ]);
    return json(200, pageOf([...own, ...platform], query.page, query.page_size), {
      // The catalogue changes rarely and is the same for everyone at one hotspot.
      'cache-control': 'public, max-age=60',
    });
  },
);
