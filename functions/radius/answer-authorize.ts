// The answer to an authorize call, the front's and an edge's alike.

import { clock } from '../core/clock.js';
import { json, type Reply } from '../core/http.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { noteHeard } from '../routers/heard.js';
import { loginRequestOf, type RestBody, rejectReply, requestAttributes } from './attributes.js';
import { checkLogin, recordLogin } from './authorize.js';
import { ROUTER_REFUSAL_MESSAGE, refusedInMemory, routerOfRequest } from './identity.js';
import { RestReply, RestRequest } from './schemas.js';

/** The contract of an authorize call, the front's and an edge's alike. */
export const AUTHORIZE_CONTRACT = {
  body: RestRequest,
  ok: RestReply,
  also: [{ status: 401, schema: RestReply, description: 'Access refused, with the Reply-Message to show' }],
};

/**
 * FreeRADIUS's authorize call, before the password is checked: it only reads. Accept: 200
 * with the password to check (post-auth then writes the login and sends its attributes).
 * A PAP login from a configuration that takes it (Hotspot-Login-At-Authorize, see
 * deploy/freeradius/dictionary) is checked and recorded here at once: 200 with the accept's
 * attributes and control:Hotspot-Login-Recorded, and post-auth is not called.
 * Refusal: 401 with a Reply-Message, which FreeRADIUS turns into an Access-Reject that carries it
 * to the subscriber. A router that may not speak for the NAS-Identifier it sent
 * (functions/radius/identity.ts) is refused before the code is even read.
 * `edgeResellers`: asked by an in-country edge, which speaks for these resellers' routers only.
 */
export async function answerAuthorize(body: RestBody, edgeResellers?: readonly string[]): Promise<Reply> {
  const attrs = requestAttributes(body);
  // No NAS id: a request no router may make, refused as invalid before any read.
  if (!attrs.get('NAS-Identifier')) return json(401, rejectReply('invalid_request'));
  // A router the front holds as revoked, or speaking for a NAS id not its own: no read.
  if (refusedInMemory(attrs, 'authorize')) {
    countMetric('RadiusRouterRefused');
    return json(401, { 'reply:Reply-Message': { value: ROUTER_REFUSAL_MESSAGE, do_xlat: false } });
  }
  // The router is read with the code (one BatchGetItem) and judged first (authorize.ts).
  const router = routerOfRequest(attrs, 'authorize', edgeResellers);
  const req = loginRequestOf(attrs);
  const password = attrs.get('Hotspot-Login-At-Authorize') === '1' ? attrs.get('User-Password') : undefined;
  const now = clock.now();
  const decision =
    password === undefined
      ? await checkLogin(req, now, router)
      : await recordLogin(req, password, now, router);
  // A login asked by an accepted router is its traffic, whatever the code's answer.
  await noteHeard(router.accepted, now);
  if ('routerRefused' in decision) {
    countMetric('RadiusRouterRefused');
    return json(401, { 'reply:Reply-Message': { value: ROUTER_REFUSAL_MESSAGE, do_xlat: false } });
  }
  countMetric(decision.accept ? 'RadiusAccept' : 'RadiusReject');
  if (!decision.accept) {
    log.info('radius reject', { reason: decision.reason, nasId: attrs.get('NAS-Identifier') });
    return json(401, rejectReply(decision.reason));
  }
  if (!decision.recorded) return json(200, decision.reply);
  countMetric('RadiusLogin');
  return json(200, { ...decision.reply, 'control:Hotspot-Login-Recorded': 1 });
}
