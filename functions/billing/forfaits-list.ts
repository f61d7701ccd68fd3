import { endpoint, json } from '../core/http.js';
import { pageOf } from '../core/schemas.js';
import { listForfaitsOnSale } from '../store/forfaits.js';
import { ForfaitsPage, ForfaitsQuery } from './schemas.js';

export const handler = endpoint(
  'GET /api/v1/forfaits',
  { query: ForfaitsQuery, ok: ForfaitsPage },
  async ({ query }) =>
    json(200, pageOf(await listForfaitsOnSale(), query.page, query.page_size), {
      // The catalogue changes rarely and is the same for everyone.
      'cache-control': 'public, max-age=60',
    }),
);
