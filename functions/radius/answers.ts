// The RADIUS routes' answers, the front's and an edge's alike: the exchanges over the table, and the dynamic client lookup.

import { clock } from '../core/clock.js';
import { json, type Reply } from '../core/http.js';
import { clientAt } from '../routers/router-secrets.js';
import { type RestBody, requestAttributes } from './attributes.js';
import { accountingExchange, authorizeExchange, postAuthExchange, type RestAnswer } from './exchange.js';
import { RestReply, RestRequest } from './schemas.js';
import { regionExchange } from './table-store.js';

/**
 * The region's RADIUS rows, the front's (`/api/v1/radius/*`, functions/radius/radius-*.ts) and an
 * in-country edge's (`/api/v1/edge/radius/*`, functions/edge/edge-radius-*.ts) alike: the
 * contract of each call, and its answer, the exchange (functions/radius/exchange.ts) over the
 * table. `edgeResellers`: asked by an in-country edge, which speaks for these resellers' routers
 * only.
 */

export const AUTHORIZE_CONTRACT = {
  body: RestRequest,
  ok: RestReply,
  also: [{ status: 401, schema: RestReply, description: 'Access refused, with the Reply-Message to show' }],
};
export const POST_AUTH_CONTRACT = { body: RestRequest, ok: RestReply };
export const ACCOUNTING_CONTRACT = { body: RestRequest, response: { status: 204 } } as const;
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

type Answer = (
  attrs: ReadonlyMap<string, string>,
  x: ReturnType<typeof regionExchange>,
  edgeResellers?: readonly string[],
) => Promise<RestAnswer>;

const answered =
  (exchange: Answer) =>
  async (body: RestBody, edgeResellers?: readonly string[]): Promise<Reply> => {
    const a = await exchange(requestAttributes(body), regionExchange(clock.now()), edgeResellers);
    return json(a.status, a.body);
  };

export const answerAuthorize = /* @__PURE__ */ answered(authorizeExchange);
export const answerPostAuth = /* @__PURE__ */ answered(postAuthExchange);
export const answerAccounting = /* @__PURE__ */ answered(accountingExchange);

/**
 * FreeRADIUS's dynamic client lookup (deploy/freeradius/sites/dynamic-clients): the packet's
 * source address in `Hotspot-NAS-IP`; 200 with the client's definition (its own secret, its
 * router id as shortname, Message-Authenticator required) for the active UDP router registered
 * there, 404 otherwise, and FreeRADIUS then drops the packet.
 */
export async function answerClient(body: RestBody, edgeResellers?: readonly string[]): Promise<Reply> {
  const client = await clientAt(requestAttributes(body).get('Hotspot-NAS-IP') ?? '', edgeResellers);
  return client ? json(200, client) : json(404, {});
}
