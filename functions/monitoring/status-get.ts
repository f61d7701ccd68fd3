// GET /api/v1/monitoring/status: Public status of the service, from the latest canary run

import { endpoint, json } from '../core/http.js';
import { currentPublicStatus } from './dashboard.js';
import { NoQuery, PublicStatusSchema } from './schemas.js';

/** Public: a status page may poll it; a short shared cache spares the table. */
export const handler = endpoint(
  'GET /api/v1/monitoring/status',
  { query: NoQuery, ok: PublicStatusSchema },
  async () => json(200, await currentPublicStatus(), { 'cache-control': 'public, max-age=30' }),
);
