import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { loginRequestOf, rejectReply, requestAttributes } from './attributes.js';
import { checkLogin } from './authorize.js';
import { ROUTER_REFUSAL_MESSAGE, requestRouter } from './identity.js';
import { RestReply, RestRequest } from './schemas.js';

/**
 * FreeRADIUS's authorize call, before the password is checked: it only reads. Accept: 200
 * with the password to check (post-auth then writes the login and sends its attributes).
 * Refusal: 401 with a Reply-Message, which FreeRADIUS turns into an Access-Reject that carries it
 * to the subscriber. A router that may not speak for the NAS-Identifier it sent
 * (functions/radius/identity.ts) is refused before the code is even read.
 */
export const handler = endpoint(
  'POST /api/v1/radius/authorize',
  {
    body: RestRequest,
    ok: RestReply,
    also: [{ status: 401, schema: RestReply, description: 'Access refused, with the Reply-Message to show' }],
  },
  async ({ body }) => {
    const attrs = requestAttributes(body);
    // No NAS id: a request no router may make, refused as invalid before any read.
    if (!attrs.get('NAS-Identifier')) return json(401, rejectReply('invalid_request'));
    const from = await requestRouter(attrs, 'authorize');
    if ('refused' in from) {
      countMetric('RadiusRouterRefused');
      return json(401, { 'reply:Reply-Message': { value: ROUTER_REFUSAL_MESSAGE, do_xlat: false } });
    }
    const decision = await checkLogin(
      { ...loginRequestOf(attrs), routerResellerId: from.router.reseller_id },
      clock.now(),
    );
    countMetric(decision.accept ? 'RadiusAccept' : 'RadiusReject');
    if (!decision.accept)
      log.info('radius reject', { reason: decision.reason, nasId: attrs.get('NAS-Identifier') });
    return decision.accept ? json(200, decision.reply) : json(401, rejectReply(decision.reason));
  },
);
