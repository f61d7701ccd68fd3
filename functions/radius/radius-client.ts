import { endpoint, json } from '../core/http.js';
import { edgeOfBearer } from '../edge/edge-auth.js';
import { clientAt } from '../routers/router-secrets.js';
import { requestAttributes } from './attributes.js';
import { RestReply, RestRequest } from './schemas.js';

/**
 * FreeRADIUS's dynamic client lookup (deploy/freeradius/sites/dynamic-clients): the packet's
 * source address in `Hotspot-NAS-IP`; 200 with the client's definition (its own secret, its
 * router id as shortname, Message-Authenticator required) for the active UDP router registered
 * there, 404 otherwise, and FreeRADIUS then drops the packet.
 */
export const handler = endpoint(
  'POST /api/v1/radius/client',
  {
    body: RestRequest,
    ok: RestReply,
    also: [
      {
        status: 404,
        schema: RestReply,
        description: 'No active router at this address: the packet is dropped',
      },
    ],
  },
  async ({ body, headers }) => {
    // An in-country edge (functions/edge/edge-auth.ts) learns its own resellers' routers only.
    const edge = await edgeOfBearer(headers.authorization);
    const client = await clientAt(requestAttributes(body).get('Hotspot-NAS-IP') ?? '', edge?.reseller_ids);
    return client ? json(200, client) : json(404, {});
  },
);
