// The answer to a post-auth call, the front's and an edge's alike.

import { clock } from '../core/clock.js';
import { json, type Reply } from '../core/http.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { loginRequestOf, type RestBody, rejectReply, requestAttributes } from './attributes.js';
import { authorizeLogin } from './authorize.js';
import { ROUTER_REFUSAL_MESSAGE, requestRouter } from './identity.js';
import { RestReply, RestRequest } from './schemas.js';

/** The contract of a post-auth call, the front's and an edge's alike. */
export const POST_AUTH_CONTRACT = { body: RestRequest, ok: RestReply };

/**
 * FreeRADIUS's post-auth call, once the PAP or CHAP password matched: the login is decided
 * again and written (device lease, data grant, clock, a voucher's redemption), and the answer
 * carries the attributes of the accept. A refusal here (another device took the last place
 * since authorize) is a 200 with its Reply-Message and `control:Hotspot-Login-Refused` (rlm_rest
 * applies a post-auth body only on 2xx), which the site turns into an Access-Reject; so is any
 * failure, since a login the API did not record must not get in.
 * `edgeResellers`: asked by an in-country edge, which speaks for these resellers' routers only.
 */
export async function answerPostAuth(body: RestBody, edgeResellers?: readonly string[]): Promise<Reply> {
  const attrs = requestAttributes(body);
  // Authorize refused such a router already; one revoked since is refused here, writing nothing.
  const from = await requestRouter(attrs, 'post-auth', edgeResellers);
  if ('refused' in from) {
    countMetric('RadiusRouterRefused');
    return json(200, {
      'reply:Reply-Message': { value: ROUTER_REFUSAL_MESSAGE, do_xlat: false },
      'control:Hotspot-Login-Refused': 1,
    });
  }
  const decision = await authorizeLogin(
    { ...loginRequestOf(attrs), routerResellerId: from.router.reseller_id },
    clock.now(),
  );
  countMetric(decision.accept ? 'RadiusLogin' : 'RadiusReject');
  if (!decision.accept) {
    log.info('radius reject at post-auth', { reason: decision.reason, nasId: attrs.get('NAS-Identifier') });
    return json(200, { ...rejectReply(decision.reason), 'control:Hotspot-Login-Refused': 1 });
  }
  return json(200, decision.reply);
}
