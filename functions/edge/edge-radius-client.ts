// POST /api/v1/edge/radius/client: an edge's dynamic client lookup: one of its resellers' UDP routers at a source address.

import { endpoint, json } from '../core/http.js';
import { CLIENT_CONTRACT } from '../radius/answers.js';
import { requestAttributes } from '../radius/attributes.js';
import { routerKeys } from '../routers/keys-client.js';
import './edge-auth.js';

/**
 * An in-country edge's client, forwarded from its FreeRADIUS or replayed after a cut: the UDP
 * router of one of the edge's resellers at the packet's source address, its secret opened by the
 * router keys (functions/routers/router-keys.ts) for the edge's own token, as the front's lookup
 * answers (functions/radius/answers.ts): 200 with the client's definition, else 404.
 */
export const handler = endpoint(
  'POST /api/v1/edge/radius/client',
  CLIENT_CONTRACT,
  async ({ body, headers }) => {
    const client = await routerKeys.edgeClient(
      headers.authorization ?? '',
      requestAttributes(body).get('Hotspot-NAS-IP') ?? '',
    );
    return client ? json(200, client) : json(404, {});
  },
);
