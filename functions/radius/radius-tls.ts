import { endpoint, json } from '../core/http.js';
import { frontTls } from '../routers/routers.js';
import { FrontTls } from '../routers/schemas.js';

/**
 * The RADIUS front's RadSec files, fetched by deploy/freeradius/run.sh at start when it has
 * none: the router CA (to check routers' certificates), and a server certificate signed by it
 * with the front's key (derived from ROUTER_KEY_SEED, the same for every task). Only a RADIUS
 * server's bearer secret gets them.
 */
export const handler = endpoint('GET /api/v1/radius/tls', { ok: FrontTls }, async () =>
  json(200, await frontTls('hotspot-radius-front')),
);
