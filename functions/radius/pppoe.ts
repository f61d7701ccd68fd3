// PPPoE logins and accounting through the RADIUS core: a subscriber's plan answered, its period's data counted once.

import { stateOf } from '../billing/pppoe.js';
import { log } from '../core/log.js';
import type { PppoePlan, PppoeSubscriber } from '../store/pppoe.js';
import { untilSettled } from '../store/retry.js';
import type { AccountingOutcome, reportOf } from './accounting.js';
import { mikrotikRateLimit, passwordReply, type Refusal } from './attributes.js';
import type { Caller } from './caller.js';
import type { Decision } from './login.js';
import type { Exchange } from './port.js';

/**
 * A PPPoE subscriber's login and accounting (docs/pppoe.md, "RADIUS"). A request is PPPoE's
 * when it says `Framed-Protocol = PPP` (RouterOS's PPP server sends it with every Access-Request
 * and accounting report; its hotspot never does). The user name is looked up through its login
 * item, whoever holds it; the router must speak for the hotspot (judged before, as for a code),
 * which must be the subscriber's reseller's and one it connects through.
 *
 * A login only reads: authorize answers the password as stored (`control:Cleartext-Password`,
 * which FreeRADIUS's pap, chap and mschap modules check) together with the accept's attributes
 * and `control:Hotspot-Login-Recorded`, so post-auth is not called: nothing is written at a
 * PPPoE login, and a wrong password is rejected by FreeRADIUS with the attributes removed.
 */

/** The address list and pool of the expired state: the router's firewall sends them to the pay page. */
const EXPIRED_ADDRESS_LIST = 'pppoe-expired';
const EXPIRED_POOL = 'pppoe-expired-pool';
/** The expired state's speed (kbps, both ways): enough for the pay page and mobile money. */
const EXPIRED_KBPS = 256;
/**
 * The expired state's Session-Timeout: the session comes back to be judged again this often, so
 * a subscriber who paid from the pay page is on the plan's speed within this time at most.
 */
const EXPIRED_SESSION_S = 300;

const GiB = 2 ** 30;

/** A PPPoE request (see the top). */
export const isPppoe = (attrs: ReadonlyMap<string, string>): boolean =>
  attrs.get('Framed-Protocol') === 'PPP';

/** A user name as stored: 3..32 of `a-z 0-9 . _ -` (read in lower case); anything else is no one's. */
const USERNAME = /^[a-z0-9._-]{3,32}$/;

type Found = { subscriber: PppoeSubscriber; plan: PppoePlan };

/** The subscriber a request names, if the router judged as `caller` may log it in at `nasId`. */
async function subscriberAsked(
  userName: string,
  nasId: string,
  caller: Caller | undefined,
  x: Exchange,
): Promise<Found | { refused: Refusal }> {
  const name = userName.trim().toLowerCase();
  if (!USERNAME.test(name) || !nasId || nasId.length > 64) return { refused: 'pppoe_unknown' };
  const got = await x.store.subscriberLogin(name, nasId);
  if (got === 'unavailable') return { refused: 'pppoe_unavailable' };
  const { subscriber, plan, nas } = got;
  if (!subscriber || !plan || !nas) return { refused: 'pppoe_unknown' };
  const resellerId = subscriber.reseller_id;
  if (nas.reseller_id !== resellerId || (caller && caller.reseller_id !== resellerId))
    return { refused: 'pppoe_unknown' };
  if (subscriber.nas_ids.length > 0 && !subscriber.nas_ids.includes(nasId))
    return { refused: 'pppoe_unknown' };
  return { subscriber, plan };
}

/** The speed of the period as counted: the plan's, or its fair-use step's once past it. */
function speedOf(s: PppoeSubscriber, plan: PppoePlan): { down: number; up: number; stepped: boolean } {
  const step = plan.fair_use;
  if (step && (s.period_bytes ?? 0) >= step.gb * GiB)
    return { down: step.down_kbps, up: step.up_kbps, stepped: true };
  return { down: plan.down_kbps, up: plan.up_kbps, stepped: false };
}

/** The accept of a subscriber in its state at `nowMs` (suspended: refused). */
function answer({ subscriber: s, plan }: Found, x: Exchange): Decision {
  const state = stateOf(s, plan, x.nowMs);
  if (state === 'suspended') return { accept: false, reason: 'pppoe_suspended' };
  const reply: Record<string, unknown> = {
    ...passwordReply(s.password),
    'control:Hotspot-Login-Recorded': 1,
    'reply:Acct-Interim-Interval': x.rules.interimS,
  };
  if (state === 'new' || state === 'expired') {
    reply['reply:Mikrotik-Rate-Limit'] = literal(
      mikrotikRateLimit(EXPIRED_KBPS, EXPIRED_KBPS, EXPIRED_KBPS, EXPIRED_KBPS),
    );
    reply['reply:Mikrotik-Address-List'] = literal(EXPIRED_ADDRESS_LIST);
    reply['reply:Framed-Pool'] = literal(EXPIRED_POOL);
    reply['reply:Session-Timeout'] = EXPIRED_SESSION_S;
    return { accept: true, vendor: 'mikrotik', reply, recorded: true };
  }
  // Active: to the period's end; in its grace: to the grace's end.
  const end = Date.parse(s.paid_until as string) + (state === 'grace' ? plan.grace_days * 86_400_000 : 0);
  const speed = speedOf(s, plan);
  reply['reply:Mikrotik-Rate-Limit'] = literal(mikrotikRateLimit(speed.up, speed.down, speed.up, speed.down));
  reply['reply:Session-Timeout'] = Math.max(1, Math.ceil((end - x.nowMs) / 1000));
  if (s.address) reply['reply:Framed-IP-Address'] = s.address;
  return { accept: true, vendor: 'mikrotik', reply, recorded: true };
}

const literal = (value: string) => ({ value, do_xlat: false });

/**
 * A PPPoE login (authorize, or post-auth if a configuration calls it): the subscriber's accept
 * with its password to check, or a refusal. Reads only.
 */
export async function pppoeLogin(
  attrs: ReadonlyMap<string, string>,
  caller: Caller | undefined,
  x: Exchange,
): Promise<Decision> {
  const found = await subscriberAsked(
    attrs.get('User-Name') ?? '',
    attrs.get('NAS-Identifier') ?? '',
    caller,
    x,
  );
  if ('refused' in found) return { accept: false, reason: found.refused };
  return answer(found, x);
}

type Report = NonNullable<ReturnType<typeof reportOf>>;

/**
 * A PPPoE accounting report counted toward its subscriber's period: the session's running total
 * beyond what was counted of it (see `countSessionBytes`), once, under any replay or race. A
 * report of no subscriber of the router's reseller is answered and ignored (resending it would
 * change nothing). Counted only: the fair-use step takes effect at the next login.
 */
export async function pppoeAccount(
  report: Report,
  caller: Caller | undefined,
  x: Exchange,
): Promise<AccountingOutcome> {
  if (report.status === 'Accounting-On' || report.status === 'Accounting-Off') return 'ignored';
  const { uniqueId } = report;
  if (!uniqueId || uniqueId.length > 128) return 'ignored';
  const found = await subscriberAsked(report.userName ?? '', report.nasId, caller, x);
  if ('refused' in found) {
    if (found.refused !== 'pppoe_unavailable') log.info('pppoe accounting ignored', { nasId: report.nasId });
    return 'ignored';
  }
  const subscriberId = found.subscriber.id;
  const nowIso = new Date(x.nowMs).toISOString();
  return untilSettled<AccountingOutcome>(async () => {
    const counted = await x.store.pppoeCounted(subscriberId, uniqueId);
    if (counted !== undefined && report.totalBytes <= counted) return 'unchanged';
    const count = {
      subscriber_id: subscriberId,
      id: uniqueId,
      nas_id: report.nasId,
      total_bytes: report.totalBytes,
      updated_at: nowIso,
    };
    return (await x.store.countPppoe(count, counted)) ? 'stored' : undefined;
  }, 'pppoe accounting: the session kept changing under this report');
}
