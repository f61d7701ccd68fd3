// A RADIUS login decided: the code, the hotspot, the device rule, the guess budgets, then the login recorded.

import { addressKey } from '../core/address.js';
import { safeEqual } from '../core/compare.js';
import { log } from '../core/log.js';
import type { AccessCode } from '../store/access-codes.js';
import { SEEN_REFRESH_MS } from '../store/hotspot-addresses.js';
import type { NasRecord, NasVendor } from '../store/nas.js';
import { untilSettled } from '../store/retry.js';
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
import type { Caller } from './caller.js';
import { judgeDevice, radiusCounters } from './guesses.js';
import type { Exchange, RadiusRules } from './port.js';
import { dataGrant, type Standing, standing } from './standing.js';

/**
 * Who may connect, decided for every NAS vendor alike, the region's and an edge's alike (one
 * rule, `decide`):
 * - the code exists, and the NAS asking belongs to the code's reseller (and to the router's);
 * - a code never used is refused past its `use_by`; once started, past its `expires_at`;
 * - its data (counted over all its sessions by accounting) is not used up;
 * - fewer devices than its forfait allows hold a live lease (a device's lease is renewed by
 *   each interim update and ends two intervals after the last one, so a session whose NAS went
 *   silent never blocks a new login, whether or not the sweep has closed it yet); a typed code
 *   takes a MAC login's place when none is free.
 *
 * A login is decided twice: at authorize (before the password is checked) it only reads and
 * answers; at post-auth (once PAP or CHAP matched) it is decided again on a fresh read and
 * written (lease, data grant, clock, a voucher's redemption) by a conditional write, so a wrong
 * password changes nothing and two devices racing for the last place cannot both get in. A PAP
 * login from a configuration that takes it is both at once: the password compared here in
 * constant time, the login written from the authorize's own read.
 *
 * How data is shared by several devices: functions/radius/standing.ts.
 */
interface LoginRequest {
  userName: string;
  nasId: string;
  /** Calling-Station-Id (the device's MAC); else the NAS port keeps devices apart. */
  callingStationId?: string;
  nasPort?: string;
  /** The address the router sent from (Hotspot-NAS-IP): recorded as its hotspot's address. */
  sourceIp?: string | undefined;
}

export type Decision =
  | {
      accept: true;
      vendor: NasVendor;
      reply: Record<string, unknown>;
      /** The login was written (post-auth's work done). */
      recorded?: boolean;
    }
  | { accept: false; reason: Refusal };

/**
 * How far a login goes: `check` (authorize: reads and answers the password to check), `record`
 * (post-auth: decided again and written), or the PAP password to compare, then written.
 */
export type LoginMode = 'check' | 'record' | { password: string };

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

type Decided = { refused: Refusal } | Plan;

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

/** The one rule (see the top): a code and its hotspot as read, the device asking, now. */
function decide(
  code: AccessCode | undefined,
  nas: NasRecord | undefined,
  req: LoginRequest,
  caller: Caller | undefined,
  x: Exchange,
  macLogin = false,
): Decided {
  if (!code) return { refused: 'unknown_code' };
  if (!nas || nas.reseller_id !== code.reseller_id) return { refused: 'wrong_hotspot' };
  if (caller && nas.reseller_id !== caller.reseller_id) return { refused: 'wrong_hotspot' };
  const s = standing(code, x.nowMs);
  if ('refused' in s) return s;
  const nowS = Math.floor(x.nowMs / 1000);
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
  live[key] = nowS + x.rules.leaseS;
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
  if (!normalizeCode(req.userName) || !req.nasId || req.nasId.length > MAX_KEY) return 'invalid_request';
  if (normalizeCode(req.userName).length > MAX_KEY) return 'unknown_code';
  return undefined;
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
  caller: Caller | undefined,
  x: Exchange,
): Promise<Decided> {
  const refused = { refused: 'mac_unknown' as const };
  // Only the bindings of the reseller whose router asks (judged to speak for this NAS).
  const resellerId = caller?.reseller_id ?? nas?.reseller_id;
  if (!nas || !resellerId || nas.reseller_id !== resellerId) return refused;
  const codes = await x.store.codes(await x.store.bindings(resellerId, mac));
  const ending = (c: AccessCode) => (c.expires_at ? Date.parse(c.expires_at) : Number.POSITIVE_INFINITY);
  for (const code of [...codes].sort((a, b) => ending(b) - ending(a))) {
    const d = decide(code, nas, req, caller, x, true);
    if (!('refused' in d)) return { ...d, password: x.rules.macAuthPassword };
  }
  return refused;
}

/** The decision on the code and hotspot as read (a MAC login reads its bindings first). */
function decideOnRead(
  req: LoginRequest,
  code: AccessCode | undefined,
  nas: NasRecord | undefined,
  caller: Caller | undefined,
  x: Exchange,
): Promise<Decided> | Decided {
  const mac = code ? undefined : macLoginOf(req);
  return mac ? decideMac(mac, nas, req, caller, x) : decide(code, nas, req, caller, x);
}

/**
 * Authorize's decision, from one read of the guess counters, the code, the hotspot and the
 * router's last seen address. A guessing device past its own limit is refused first
 * (functions/radius/guesses.ts); then the code is decided, and the guess budgets say whether
 * that answer may be given: a wrong code (unknown, or another reseller's) is counted; past the
 * NAS's count, a printed card on a device it was not used on gets the wrong codes' refusal (a
 * guesser changing MAC finds nothing), while paid codes and cards on devices that used them get
 * in, however many wrong ones the hotspot saw. A MAC login guesses no code (it is looked up by the
 * device's own MAC), and a hotspot with MAC login sends one for every device that joins: it
 * neither spends nor counts guesses.
 */
async function gatedDecision(req: LoginRequest, caller: Caller | undefined, x: Exchange): Promise<Decided> {
  const { store, nowMs } = x;
  const guessing = !macLoginOf(req) && Boolean(req.nasId) && req.nasId.length <= MAX_KEY;
  const counters = guessing
    ? radiusCounters(req.nasId, deviceKey(req), normalizeMac(req.callingStationId) !== undefined)
    : [];
  const bad = unusable(req);
  const seen =
    caller && req.sourceIp ? { address: addressKey(req.sourceIp), router_id: caller.router_id } : undefined;
  const got = await store.loginReads(
    {
      counters,
      ...(seen ? { seen } : {}),
      ...(bad ? {} : { code: normalizeCode(req.userName), nasId: req.nasId }),
    },
    nowMs,
  );
  if (seen && !(got.seen && Date.parse(got.seen.seen_at) > nowMs - SEEN_REFRESH_MS))
    await store.noteSeen({ ...seen, seen_at: new Date(nowMs).toISOString() });
  if (!judgeDevice(counters, got.counts, nowMs).allowed) return { refused: 'rate_limited' };
  const code = bad ? undefined : got.code;
  const d = bad ? { refused: bad } : await decideOnRead(req, code, got.nas, caller, x);
  // The guess budgets: whether this answer may be given at all (functions/radius/guesses.ts).
  const login = { code, refused: 'refused' in d ? d.refused : undefined, device: deviceKey(req) };
  if (guessing && (await store.gateLogin(counters, got.counts, nowMs, login))?.allowed === false)
    return { refused: 'rate_limited' };
  return d;
}

/** Post-auth's decision: the code and hotspot read again, fresh (the guess gate was authorize's). */
async function freshDecision(req: LoginRequest, caller: Caller | undefined, x: Exchange): Promise<Decided> {
  const bad = unusable(req);
  if (bad) return { refused: bad };
  const got = await x.store.loginReads(
    { counters: [], code: normalizeCode(req.userName), nasId: req.nasId },
    x.nowMs,
  );
  return decideOnRead(req, got.code, got.nas, caller, x);
}

/** A refusal, or the accept that hands FreeRADIUS the password to check (nothing written). */
function passwordCheck(d: Decided): Decision {
  if ('refused' in d) return { accept: false, reason: d.refused };
  return { accept: true, vendor: d.nas.vendor ?? 'mikrotik', reply: passwordReply(d.password) };
}

/** The accept of a login written: each vendor's attributes of its time, rates and data. */
function grantOf(d: Plan, rules: RadiusRules): Decision {
  const vendor = d.nas.vendor ?? 'mikrotik';
  const grant: Grant = {
    password: d.password,
    sessionTimeoutS: d.macLogin
      ? Math.min(d.standing.secondsLeft, rules.macSessionS)
      : d.standing.secondsLeft,
    cirKbps: d.code.offer.cir_kbps,
    mirKbps: d.code.offer.mir_kbps,
    dataBytes: d.dataBytes,
    interimS: rules.interimS,
    expiresAt: d.standing.expiresAt,
  };
  return { accept: true, vendor, reply: acceptReply(vendor, grant), recorded: true };
}

/**
 * The login written, by a conditional write on the code's `devices_version`: a plan decided
 * on a read made just now (`first`) is written at once; when another login of the same code
 * raced it, the code is read and the login decided again. Logins of one code that keep racing
 * refuse this one (the NAS or the subscriber tries again).
 */
async function record(
  first: Plan,
  req: LoginRequest,
  caller: Caller | undefined,
  x: Exchange,
): Promise<Decision> {
  let plan: Decided | undefined = first;
  return untilSettled<Decision>(
    async () => {
      const d = plan ?? (await freshDecision(req, caller, x));
      plan = undefined;
      if ('refused' in d) return { accept: false, reason: d.refused };
      const claimed = await x.store.claimDevice({
        code: d.code,
        devices: d.devices,
        grants: d.grants,
        macLeases: d.macLeases,
        nowIso: new Date(x.nowMs).toISOString(),
        expiresAt: d.standing.expiresAt,
        nasId: req.nasId,
      });
      if (!claimed) return undefined;
      if (d.evicted.length) await cutEvicted(d.code, d.evicted, x);
      return grantOf(d, x.rules);
    },
    () => ({ accept: false, reason: 'device_limit' }),
    4,
  );
}

/**
 * The sessions of MAC-login devices a typed login took the place of are cut (Disconnect). Never
 * throws: the login is recorded, and its answer must not depend on this; a session whose cut is
 * not recorded lasts at most its MAC-login Session-Timeout.
 */
async function cutEvicted(code: AccessCode, devices: string[], x: Exchange): Promise<void> {
  try {
    await x.store.cutDevices(code, devices, x.nowMs);
    log.info('mac login taken over by a typed code', { devices: devices.length });
  } catch (error) {
    log.warn('mac login taken over: disconnect not recorded', { error: (error as Error).message });
  }
}

/**
 * A login, as far as `mode` takes it (see `LoginMode`), for the router judged as `caller`
 * (undefined: asked without one, as a test does). A PAP password that does not match writes
 * nothing and answers the password to check, as `check` does: FreeRADIUS's PAP then rejects it.
 */
export async function login(
  req: LoginRequest,
  mode: LoginMode,
  caller: Caller | undefined,
  x: Exchange,
): Promise<Decision> {
  if (mode === 'record') {
    const d = await freshDecision(req, caller, x);
    return 'refused' in d ? passwordCheck(d) : record(d, req, caller, x);
  }
  const d = await gatedDecision(req, caller, x);
  if (mode === 'check' || 'refused' in d || !safeEqual(mode.password, d.password)) return passwordCheck(d);
  return record(d, req, caller, x);
}
