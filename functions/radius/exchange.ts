// The three RADIUS exchanges as rlm_rest asks them (attributes in, REST status and body out), the same on every road.

import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { type AccountingOutcome, account, reportOf } from './accounting.js';
import { loginRequestOf, type Refusal, rejectReply } from './attributes.js';
import { judgeCaller, ROUTER_REFUSAL_MESSAGE, type RouterRefusal } from './caller.js';
import { type Decision, login } from './login.js';
import type { Exchange } from './port.js';
import { isPppoe, pppoeAccount, pppoeLogin } from './pppoe.js';

/**
 * The three RADIUS exchanges as FreeRADIUS's rlm_rest asks them: the request's attributes in,
 * the REST status and body out. One function per exchange, called the same way by every road
 * that answers a router: the front's service and the region's edge rows (over the table,
 * functions/radius/answers.ts) and an in-country edge deciding during a cut (over its replica,
 * functions/edge-service/offline.ts). Each judges the router first (functions/radius/caller.ts),
 * then decides (login.ts, accounting.ts) through the exchange's store.
 */
export interface RestAnswer {
  status: number;
  body?: Record<string, unknown>;
  /** What was decided: a login's decision, a report's outcome, or the router's refusal. */
  decision?: Decision;
  outcome?: AccountingOutcome;
  routerRefused?: RouterRefusal;
}

/** The refusal of a router that may not speak for the NAS-Identifier it sent. */
const routerRefusedReply = () => ({
  'reply:Reply-Message': { value: ROUTER_REFUSAL_MESSAGE, do_xlat: false },
});

/**
 * Authorize, before the password is checked: it only reads. Accept: 200 with the password to
 * check (post-auth then writes the login and sends its attributes). A PAP login from a
 * configuration that takes it (Hotspot-Login-At-Authorize, see deploy/freeradius/dictionary) is
 * checked and recorded here at once: 200 with the accept's attributes and
 * control:Hotspot-Login-Recorded, and post-auth is not called. Refusal: 401 with a
 * Reply-Message, which FreeRADIUS turns into an Access-Reject that carries it to the subscriber.
 * `edgeResellers`: asked by an in-country edge, which speaks for these resellers' routers only.
 */
export async function authorizeExchange(
  attrs: ReadonlyMap<string, string>,
  x: Exchange,
  edgeResellers?: readonly string[],
): Promise<RestAnswer> {
  // No NAS id: a request no router may make, refused as invalid before any read.
  if (!attrs.get('NAS-Identifier')) return refusal('invalid_request');
  const judged = await judgeCaller(attrs, 'authorize', x.store, edgeResellers);
  if ('refused' in judged) {
    countMetric('RadiusRouterRefused');
    return { status: 401, body: routerRefusedReply(), routerRefused: judged.refused };
  }
  const { caller } = judged;
  const password = attrs.get('Hotspot-Login-At-Authorize') === '1' ? attrs.get('User-Password') : undefined;
  // A PPPoE subscriber's login is answered whole here (functions/radius/pppoe.ts).
  const pppoe = isPppoe(attrs);
  const decision = pppoe
    ? await pppoeLogin(attrs, caller, x)
    : await login(loginRequestOf(attrs), password === undefined ? 'check' : { password }, caller, x);
  // A login asked by an accepted router is its traffic, whatever the code's answer.
  if (caller.router) await x.store.heard(caller.router, x.nowMs);
  countMetric(decision.accept ? 'RadiusAccept' : 'RadiusReject');
  if (!decision.accept) {
    log.info('radius reject', { reason: decision.reason, nasId: attrs.get('NAS-Identifier') });
    return { ...refusal(decision.reason), decision };
  }
  if (pppoe || password === undefined || !decision.recorded)
    return { status: 200, body: decision.reply, decision };
  countMetric('RadiusLogin');
  return { status: 200, body: { ...decision.reply, 'control:Hotspot-Login-Recorded': 1 }, decision };
}

const refusal = (reason: Refusal): RestAnswer => ({ status: 401, body: rejectReply(reason) });

/**
 * Post-auth, once the PAP or CHAP password matched: the login is decided again and written
 * (device lease, data grant, clock, a voucher's redemption), and the answer carries the
 * attributes of the accept. A refusal here (another device took the last place since authorize,
 * or the router was revoked since) is a 200 with its Reply-Message and
 * `control:Hotspot-Login-Refused` (rlm_rest applies a post-auth body only on 2xx), which the site
 * turns into an Access-Reject; so is any failure, since a login not recorded must not get in.
 */
export async function postAuthExchange(
  attrs: ReadonlyMap<string, string>,
  x: Exchange,
  edgeResellers?: readonly string[],
): Promise<RestAnswer> {
  const judged = await judgeCaller(attrs, 'post-auth', x.store, edgeResellers);
  if ('refused' in judged) {
    countMetric('RadiusRouterRefused');
    return {
      status: 200,
      body: { ...routerRefusedReply(), 'control:Hotspot-Login-Refused': 1 },
      routerRefused: judged.refused,
    };
  }
  const decision = isPppoe(attrs)
    ? await pppoeLogin(attrs, judged.caller, x)
    : await login(loginRequestOf(attrs), 'record', judged.caller, x);
  countMetric(decision.accept ? 'RadiusLogin' : 'RadiusReject');
  if (!decision.accept) {
    log.info('radius reject at post-auth', { reason: decision.reason, nasId: attrs.get('NAS-Identifier') });
    return {
      status: 200,
      body: { ...rejectReply(decision.reason), 'control:Hotspot-Login-Refused': 1 },
      decision,
    };
  }
  return { status: 200, body: decision.reply, decision };
}

/**
 * Accounting: 204 once the report is stored (or changed nothing); any failure throws, so the
 * NAS gets no Accounting-Response and resends. A report the API cannot use
 * (`Acct-Status-Type = Failed`, no status, no NAS id) is answered 204 and logged: refusing it
 * would only make the NAS resend it forever. A report from a router that may not speak for its
 * NAS-Identifier is answered 204 too, and nothing of it is written (the refusal is logged).
 */
export async function accountingExchange(
  attrs: ReadonlyMap<string, string>,
  x: Exchange,
  edgeResellers?: readonly string[],
): Promise<RestAnswer> {
  const judged = await judgeCaller(attrs, 'accounting', x.store, edgeResellers);
  if ('refused' in judged) {
    countMetric('RadiusRouterRefused');
    return { status: 204, routerRefused: judged.refused };
  }
  const { caller } = judged;
  const report = reportOf(attrs);
  const outcome = !report
    ? undefined
    : isPppoe(attrs)
      ? await pppoeAccount(report, caller, x)
      : await account(report, caller, x);
  // Its report, stored or not: the router is alive (functions/routers/heard.ts).
  if (caller.router) await x.store.heard(caller.router, x.nowMs);
  if (!report) {
    log.info('radius accounting ignored', {
      status: attrs.get('Acct-Status-Type')?.slice(0, 32),
      nasId: attrs.get('NAS-Identifier')?.slice(0, 64),
    });
    countMetric('RadiusAccountingIgnored');
    return { status: 204 };
  }
  countMetric('RadiusAccounting');
  if (typeof outcome === 'object')
    log.info('nas restart closed sessions', { nasId: report.nasId, ...outcome });
  return { status: 204, ...(outcome ? { outcome } : {}) };
}
