// The answer to a dynamic client lookup, the front's and an edge's alike.

import { json, type Reply } from '../core/http.js';
import { clientAt } from '../routers/router-secrets.js';
import { type RestBody, requestAttributes } from './attributes.js';
import { RestReply, RestRequest } from './schemas.js';

/** The contract of a dynamic client lookup, the front's and an edge's alike. */
export const CLIENT_CONTRACT = {
  body: RestRequest,
  ok: RestReply,
  also: [
    {
      status: 404,
      schema: RestReply,
      description: 'No active router at this address: the packet is dropped',
    },
  ],
};

/**
 * FreeRADIUS's dynamic client lookup (deploy/freeradius/sites/dynamic-clients): the packet's
 * source address in `Hotspot-NAS-IP`; 200 with the client's definition (its own secret, its
 * router id as shortname, Message-Authenticator required) for the active UDP router registered
 * there, 404 otherwise, and FreeRADIUS then drops the packet.
 * `edgeResellers`: asked by an in-country edge, which learns its own resellers' routers only.
 */
export async function answerClient(body: RestBody, edgeResellers?: readonly string[]): Promise<Reply> {
  const client = await clientAt(requestAttributes(body).get('Hotspot-NAS-IP') ?? '', edgeResellers);
  return client ? json(200, client) : json(404, {});
}
