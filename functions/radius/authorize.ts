// Who may connect, decided for every NAS vendor alike: the code, the device, the router, and the login recorded.

import { bookings, voucherSale } from '../billing/ledger.js';
import { addressKey } from '../core/address.js';
import { safeEqual } from '../core/compare.js';
import { log } from '../core/log.js';
import { Access, type AccessCode, claimDevice } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import {
  noteSeenAddress,
  SEEN_REFRESH_MS,
  type SeenAddress,
  SeenAddressEntity,
} from '../store/hotspot-addresses.js';
import { bindingsOfMac } from '../store/mac-bindings.js';
import { Nas, type NasRecord, type NasVendor } from '../store/nas.js';
import type { BudgetCount } from '../store/rate-limit.js';
import { Router, type RouterRecord } from '../store/routers.js';
import {
  acceptReply,
  deviceKey,
  type Grant,
  macLoginOf,
  normalizeCode,
  normalizeMac,
  passwordReply,
  type Refusal,
} from './attributes.js';
import { disconnectDevice } from './disconnect.js';
import { gateLogin, guessReads, judgeDevice, radiusCounters } from './guesses.js';
import type { RouterOfRequest, RouterRefusal } from './identity.js';
import { radiusSettings } from './settings.js';
import { dataGrant, type Standing, standing } from './standing.js';

/**
 * Who may connect, decided for every NAS vendor alike:
 * - the code exists, and the NAS asking belongs to the code's reseller;
 * - a code never used is refused past its `use_by`; once started, past its `expires_at`;
 * - its data (counted over all its sessions by accounting) is not used up;
 * - fewer devices than its forfait allows hold a live lease (a device's lease is renewed by
 *   each interim update and ends two intervals after the last one, so a session whose NAS went
 *   silent never blocks a new login, whether or not the sweep has closed it yet).
 *
 * A login is decided twice: `checkLogin` (FreeRADIUS's authorize, before the password is
 * checked) only reads and answers; `authorizeLogin` (post-auth, once PAP or CHAP matched)
 * decides again on a fresh read and writes the login (lease, data grant, clock, a voucher's
 * redemption) by a conditional write, so a wrong password changes nothing and two devices
 * racing for the last place cannot both get in.
 *
 * How data is shared by several devices: functions/radius/standing.ts.
 */
export interface LoginRequest {
  userName: string;
  nasId: string;
  /** Calling-Station-Id (the device's MAC); else the NAS port keeps devices apart. */
  callingStationId?: string;
  nasPort?: string;
  /**
   * The reseller of the router that sent the request (functions/radius/identity.ts): its NAS
   * ids were that reseller's when it was registered; a NAS id since given to another reseller
   * is refused as another's hotspot.
   */
  routerResellerId?: string;
  /** The address the router sent from (Hotspot-NAS-IP): recorded as its hotspot's address. */
  sourceIp?: string | undefined;
}

export type Decision =
  | {
      accept: true;
      vendor: NasVendor;
      reply: Record<string, unknown>;
      /** The login was written (post-auth's work done): `recordLogin` only. */
      recorded?: boolean;
    }
  | { accept: false; reason: Refusal };

interface Plan {
  code: AccessCode;
  /** The password FreeRADIUS checks: the code as typed, or the MAC-auth password of a MAC login. */
  password: string;
  nas: NasRecord;
  standing: Standing;
  devices: Record<string, number>;
  grants: Record<string, number>;
  macLeases: Record<string, number>;
  dataBytes: number | undefined;
  /** A MAC login: a short Session-Timeout (RADIUS_MAC_SESSION_S), then authorized again. */
  macLogin: boolean;
  /** MAC-login devices whose lease this typed login took over: their sessions are cut. */
  evicted: string[];
}

/**
 * The MAC-login leases a typed login takes over when the code has no free place for it: as
 * many as it needs, those ending first. None when the code has a place, or when too few of its
 * leases are MAC logins' (a device that typed the code is never pushed out).
 */
function evictions(code: AccessCode, live: Record<string, number>, key: string): string[] | undefined {
  const over = Object.keys(live).length - code.offer.max_devices + 1;
  if (key in live || over <= 0) return [];
  const byMac = Object.keys(live)
    .filter((d) => code.mac_leases?.[d])
    .sort((a, b) => (live[a] ?? 0) - (live[b] ?? 0));
  return byMac.length >= over ? byMac.slice(0, over) : undefined;
}

function decide(
  code: AccessCode | undefined,
  nas: NasRecord | undefined,
  req: LoginRequest,
  nowMs: number,
  macLogin = false,
): { refused: Refusal } | Plan {
  if (!code) return { refused: 'unknown_code' };
  if (!nas || nas.reseller_id !== code.reseller_id) return { refused: 'wrong_hotspot' };
  if (req.routerResellerId !== undefined && nas.reseller_id !== req.routerResellerId)
    return { refused: 'wrong_hotspot' };
  const s = standing(code, nowMs);
  if ('refused' in s) return s;
  const nowS = Math.floor(nowMs / 1000);
  const live = Object.fromEntries(Object.entries(code.devices ?? {}).filter(([, until]) => until > nowS));
  const key = deviceKey(req);
  // A typed code takes a MAC login's place when none is free; a MAC login never takes one.
  const evicted = macLogin
    ? key in live || Object.keys(live).length < code.offer.max_devices
      ? []
      : undefined
    : evictions(code, live, key);
  if (!evicted) return { refused: 'device_limit' };
  for (const d of evicted) delete live[d];
  // The evicted device's reservation goes with its lease: its session is cut within seconds, and
  // what it moves until then counts on top (the one way usage may pass the cap, by so little).
  const data = dataGrant(code, live, key, s.bytesLeft);
  if ('refused' in data) return data;
  live[key] = nowS + radiusSettings().RADIUS_LEASE_S;
  const macLeases = Object.fromEntries(
    Object.keys(live)
      .filter((d) => (d === key ? macLogin : code.mac_leases?.[d]))
      .map((d) => [d, 1]),
  );
  return {
    code,
    nas,
    password: req.userName,
    standing: s,
    devices: live,
    grants: data.grants,
    macLeases,
    dataBytes: data.bytes,
    macLogin,
    evicted,
  };
}

/** Longest code and NAS id looked up: anything longer is no key of ours (and no key DynamoDB takes). */
const MAX_KEY = 64;

/** A request the API cannot use: no user name or no NAS id, or a code longer than any of ours. */
function unusable(req: LoginRequest): Refusal | undefined {
  // A request the API cannot use (no user name or no NAS id) gets a reject with a message.
  if (!normalizeCode(req.userName) || !req.nasId || req.nasId.length > MAX_KEY) return 'invalid_request';
  if (normalizeCode(req.userName).length > MAX_KEY) return 'unknown_code';
  return undefined;
}

/** The decision on the code and hotspot as read (a MAC login reads its bindings first). */
function decideOnRead(
  req: LoginRequest,
  code: AccessCode | undefined,
  nas: NasRecord | undefined,
  nowMs: number,
): Promise<{ refused: Refusal } | Plan> | { refused: Refusal } | Plan {
  const mac = code ? undefined : macLoginOf(req);
  return mac ? decideMac(mac, nas, req, nowMs) : decide(code, nas, req, nowMs);
}

async function readAndDecide(req: LoginRequest, nowMs: number): Promise<{ refused: Refusal } | Plan> {
  const bad = unusable(req);
  if (bad) return { refused: bad };
  const [code, nas] = await batchGet(
    [
      [Access, { code: normalizeCode(req.userName) }],
      [Nas, { nas_id: req.nasId }],
    ],
    { consistent: true },
  );
  return decideOnRead(req, code, nas, nowMs);
}

/**
 * A MAC login (RouterOS `login-by=mac`: User-Name = the device's Calling-Station-Id, and no
 * code by that name): the codes this device was bound to at this router's reseller, with its
 * subscriber's consent (functions/store/mac-bindings.ts), each decided exactly as a login with
 * the code typed (hotspot, time, data, devices: the device takes one of the code's places, under
 * the same lease key as when it typed the code). The first code that lets it in is used, the one
 * ending last first. Any refusal is one fixed message: the router then shows its login page.
 */
async function decideMac(
  mac: string,
  nas: NasRecord | undefined,
  req: LoginRequest,
  nowMs: number,
): Promise<{ refused: Refusal } | Plan> {
  const refused = { refused: 'mac_unknown' as const };
  // Only the bindings of the reseller whose router asks (identity.ts checked it speaks for this NAS).
  const resellerId = req.routerResellerId ?? nas?.reseller_id;
  if (!nas || !resellerId || nas.reseller_id !== resellerId) return refused;
  const bindings = await bindingsOfMac(resellerId, mac);
  const codes = await Promise.all(bindings.map((b) => Access.get({ code: b.code }, { consistent: true })));
  const ending = (c: AccessCode) => (c.expires_at ? Date.parse(c.expires_at) : Number.POSITIVE_INFINITY);
  for (const code of codes.filter((c) => c !== undefined).sort((a, b) => ending(b) - ending(a))) {
    const d = decide(code, nas, req, nowMs, true);
    if (!('refused' in d)) return { ...d, password: radiusSettings().RADIUS_MAC_AUTH_PASSWORD };
  }
  return refused;
}

/** The router may not speak for this request (identity.ts): nothing was decided. */
export type RouterRefused = { routerRefused: RouterRefusal };

/**
 * The router's check (when given), the guess counters, then the code and hotspot decided, all
 * from one BatchGetItem: the router, the counters, the code and the hotspot are read together.
 * A refused router decides first; then a guessing device past its own limit is refused
 * (functions/radius/guesses.ts); then the code is decided, and the guess budgets say whether
 * that answer may be given: a wrong code (unknown, or another reseller's) is counted; past the
 * NAS's count, a printed card on a device it was not used on gets the wrong codes' refusal (a
 * guesser changing MAC finds nothing), while paid codes and cards on devices that used them get in,
 * however many wrong ones the hotspot saw. A MAC login guesses no code (it is looked up by the
 * device's own MAC), and a hotspot with MAC login sends one for every device that joins: it
 * neither spends nor counts guesses. Answers the request with the router's reseller (for the
 * login's later reads).
 */
async function gatedDecision(
  request: LoginRequest,
  nowMs: number,
  router: RouterOfRequest | undefined,
): Promise<{ req: LoginRequest; d: { refused: Refusal } | Plan } | RouterRefused> {
  let req = request;
  const guessing = !macLoginOf(req) && Boolean(req.nasId) && req.nasId.length <= MAX_KEY;
  const counters = guessing
    ? radiusCounters(req.nasId, deviceKey(req), normalizeMac(req.callingStationId) !== undefined)
    : [];
  const bad = unusable(req);
  const seen =
    router?.id && req.sourceIp ? { address: addressKey(req.sourceIp), router_id: router.id } : undefined;
  type Reads = Parameters<typeof batchGet>[0][number][];
  // The NAS is read whenever its id can be a key: the router's judgement needs its owner.
  const nasReadable = Boolean(req.nasId) && req.nasId.length <= MAX_KEY;
  const reads: Reads = [
    ...(router?.id ? [[Router, { router_id: router.id }] as const] : []),
    ...(seen ? [[SeenAddressEntity, seen] as const] : []),
    ...guessReads(counters, nowMs),
    ...(bad ? [] : ([[Access, { code: normalizeCode(req.userName) }]] as const)),
    ...(nasReadable ? ([[Nas, { nas_id: req.nasId }]] as const) : []),
  ];
  const got: unknown[] = reads.length > 0 ? await batchGet(reads, { consistent: true }) : [];
  const nas = nasReadable ? (got[reads.length - 1] as NasRecord | undefined) : undefined;
  let at = 0;
  if (router) {
    const judged = router.judge(router.id ? (got[at++] as RouterRecord | undefined) : undefined, nas);
    const lastSeen = seen ? (got[at++] as SeenAddress | undefined) : undefined;
    if ('refused' in judged) return { routerRefused: judged.refused };
    req = { ...req, routerResellerId: judged.router.reseller_id };
    if (seen && !(lastSeen && Date.parse(lastSeen.seen_at) > nowMs - SEEN_REFRESH_MS))
      await noteSeen({ ...seen, seen_at: new Date(nowMs).toISOString() });
  }
  const counts = got.slice(at, at + counters.length) as (BudgetCount | undefined)[];
  at += counters.length;
  if (!judgeDevice(counters, counts, nowMs).allowed) return { req, d: { refused: 'rate_limited' } };
  const code = bad ? undefined : (got[at] as AccessCode | undefined);
  const d = bad ? { refused: bad } : await decideOnRead(req, code, nas, nowMs);
  // The guess budgets: whether this answer may be given at all (functions/radius/guesses.ts).
  const login = { code, refused: 'refused' in d ? d.refused : undefined, device: deviceKey(req) };
  if (guessing && (await gateLogin(counters, counts, nowMs, login))?.allowed === false)
    return { req, d: { refused: 'rate_limited' } };
  return { req, d };
}

/**
 * Authorize, before the password is checked: reads and answers, writes nothing. An accept
 * carries only the password FreeRADIUS checks; post-auth sends the attributes of the login.
 */
export async function checkLogin(
  req: LoginRequest,
  nowMs: number,
  router?: RouterOfRequest,
): Promise<Decision | RouterRefused> {
  const g = await gatedDecision(req, nowMs, router);
  return 'routerRefused' in g ? g : passwordCheck(g.d);
}

/** A refusal, or the accept that hands FreeRADIUS the password to check (nothing written). */
function passwordCheck(d: { refused: Refusal } | Plan): Decision {
  if ('refused' in d) return { accept: false, reason: d.refused };
  return { accept: true, vendor: d.nas.vendor ?? 'mikrotik', reply: passwordReply(d.password) };
}

/**
 * Authorize and post-auth in one call, for a PAP login from a FreeRADIUS configuration that
 * takes it (deploy/freeradius/dictionary, Hotspot-Login-At-Authorize): the same gate and
 * decision as `checkLogin`, then the password compared here in constant time. A match records
 * the login as `authorizeLogin` does, starting from this read (no second one); the answer is the
 * accept's, `recorded`. A mismatch writes nothing and answers the password to check, as
 * `checkLogin` does: FreeRADIUS's PAP then rejects it.
 */
export async function recordLogin(
  req: LoginRequest,
  password: string,
  nowMs: number,
  router?: RouterOfRequest,
): Promise<Decision | RouterRefused> {
  const g = await gatedDecision(req, nowMs, router);
  if ('routerRefused' in g) return g;
  const { d } = g;
  if ('refused' in d || !safeEqual(password, d.password)) return passwordCheck(d);
  const decision = await authorizeLogin(g.req, nowMs, d);
  return decision.accept ? { ...decision, recorded: true } : decision;
}

/**
 * Records the address a router sent from (its hotspot's public address: the SMS budgets raise
 * it for the subscribers behind it). Never throws: the login must not depend on it.
 */
async function noteSeen(a: SeenAddress): Promise<void> {
  try {
    await noteSeenAddress(a);
  } catch (error) {
    log.warn('router address not recorded', { routerId: a.router_id, error: (error as Error).name });
  }
}

/**
 * The sessions of MAC-login devices a typed login took the place of are cut (Disconnect). Never
 * throws: the login is recorded, and its answer must not depend on this; a session whose cut is
 * not recorded lasts at most its MAC-login Session-Timeout.
 */
async function cutEvicted(code: AccessCode, devices: string[], nowMs: number): Promise<void> {
  try {
    for (const device of devices) await disconnectDevice(code, device, 'device_evicted', nowMs);
    log.info('mac login taken over by a typed code', { devices: devices.length });
  } catch (error) {
    log.warn('mac login taken over: disconnect not recorded', { error: (error as Error).message });
  }
}

/**
 * The login itself, once the password matched (post-auth): decided again on a fresh read and
 * written by a conditional write on the code's `devices_version`. Two DynamoDB round trips; a
 * pair more each time another login of the same code raced this one. `first`: a plan decided on
 * a read made just now (`recordLogin`'s), used for the first attempt instead of reading again.
 */
export async function authorizeLogin(req: LoginRequest, nowMs: number, first?: Plan): Promise<Decision> {
  const settings = radiusSettings();
  for (let attempt = 0; attempt < 4; attempt++) {
    const d = attempt === 0 && first ? first : await readAndDecide(req, nowMs);
    if ('refused' in d) return { accept: false, reason: d.refused };
    const nowIso = new Date(nowMs).toISOString();
    // A voucher's first use redeems it, as the API's redemption would: its sale is booked once
    // (claimDevice marks the voucher, which is the code, redeemed).
    const firstUse =
      !d.code.started_at && d.code.source === 'voucher'
        ? bookings(voucherSale(d.code, req.nasId), nowIso)
        : undefined;
    const claimed = await claimDevice({
      code: d.code,
      devices: d.devices,
      grants: d.grants,
      macLeases: d.macLeases,
      nowIso,
      expiresAt: d.standing.expiresAt,
      nasId: req.nasId,
      firstUse,
    });
    if (!claimed) continue;
    if (d.evicted.length) await cutEvicted(d.code, d.evicted, nowMs);
    const vendor = d.nas.vendor ?? 'mikrotik';
    const grant: Grant = {
      password: d.password,
      sessionTimeoutS: d.macLogin
        ? Math.min(d.standing.secondsLeft, settings.RADIUS_MAC_SESSION_S)
        : d.standing.secondsLeft,
      cirKbps: d.code.offer.cir_kbps,
      mirKbps: d.code.offer.mir_kbps,
      dataBytes: d.dataBytes,
      interimS: settings.RADIUS_INTERIM_S,
      expiresAt: d.standing.expiresAt,
    };
    return { accept: true, vendor, reply: acceptReply(vendor, grant) };
  }
  // Logins of one code kept racing: refuse this one (the NAS or the subscriber tries again).
  return { accept: false, reason: 'device_limit' };
}
