// RADIUS accounting: Start, Interim-Update, Stop and Accounting-On/Off applied to the session and its code.

import { log } from '../core/log.js';
import type { AccessCode } from '../store/access-codes.js';
import { untilSettled } from '../store/retry.js';
import { countedEntryOf, type RadiusSession } from '../store/sessions.js';
import { bytesOf, deviceKey, macLoginOf, normalizeCode } from './attributes.js';
import type { Caller } from './caller.js';
import type { Exchange } from './port.js';
import { advance, type CounterReport } from './session-counters.js';

/**
 * Accounting: every report carries the session's RUNNING totals (never increments). One
 * record per Acct-Unique-Session-Id keeps the largest totals seen, and only the difference
 * between a new total and the stored one is added to the code's usage, in the same write,
 * conditioned on the stored total as read. A replay, a duplicate or a report arriving out of
 * order adds nothing; a NAS retransmission after a lost answer adds nothing.
 *
 * One road for every report, whoever carries it (the front, an edge forwarding or replaying,
 * an edge deciding during a cut): the router judged first (functions/radius/caller.ts), then
 * `account` over the store of the place deciding (functions/radius/port.ts).
 *
 * The caller answers 2xx only once this resolved (stored, or nothing to store), so that the
 * NAS resends any report whose write failed.
 */
interface AccountingReport {
  status: 'Start' | 'Interim-Update' | 'Stop' | 'Accounting-On' | 'Accounting-Off';
  uniqueId?: string;
  userName?: string;
  nasId: string;
  callingStationId?: string;
  nasPort?: string;
  /** The NAS's own session id and address: what a Disconnect-Request names. */
  acctSessionId?: string;
  nasIp?: string;
  totalBytes: number;
  /** The two directions of `totalBytes` (absent: all of it counted as output). */
  inputBytes?: number;
  outputBytes?: number;
  sessionTimeS: number;
  /** Event-Timestamp, epoch seconds (FreeRADIUS sends it as Hotspot-Event-Time). */
  eventTime?: number;
}

/**
 * Beyond this a report's total is no session's (Acct-Input-Gigawords = 4294967295 is 16 EiB):
 * the report is answered and ignored, never a 5xx the NAS would resend forever.
 */
export const MAX_REPORT_BYTES = 2 ** 50;

export type AccountingOutcome = 'stored' | 'unchanged' | 'ignored' | { closed: number; deferred: number };

const STATUSES: readonly AccountingReport['status'][] = [
  'Start',
  'Interim-Update',
  'Stop',
  'Accounting-On',
  'Accounting-Off',
];

/** The report of the request attributes FreeRADIUS sent; undefined for one the API cannot use. */
export function reportOf(attrs: ReadonlyMap<string, string>): AccountingReport | undefined {
  const status = attrs.get('Acct-Status-Type') as AccountingReport['status'];
  if (!STATUSES.includes(status)) return undefined;
  const nasId = attrs.get('NAS-Identifier') ?? '';
  // No NAS id, or none of ours could be this long: nothing to close or count against.
  if (!nasId || nasId.length > 64) return undefined;
  const time = Number(attrs.get('Acct-Session-Time') ?? 0);
  const inputBytes = bytesOf(attrs, 'Input');
  const outputBytes = bytesOf(attrs, 'Output');
  if (!(inputBytes + outputBytes <= MAX_REPORT_BYTES)) return undefined;
  const event = Number(attrs.get('Hotspot-Event-Time'));
  return {
    status,
    uniqueId: attrs.get('Acct-Unique-Session-Id'),
    userName: attrs.get('User-Name'),
    nasId,
    callingStationId: attrs.get('Calling-Station-Id'),
    nasPort: attrs.get('NAS-Port'),
    acctSessionId: attrs.get('Acct-Session-Id'),
    // The address the packet came from (FreeRADIUS adds it): where a Disconnect-Request goes.
    nasIp: attrs.get('Hotspot-NAS-IP') ?? attrs.get('NAS-IP-Address'),
    totalBytes: inputBytes + outputBytes,
    inputBytes,
    outputBytes,
    sessionTimeS: Number.isFinite(time) && time >= 0 ? time : 0,
    ...(Number.isSafeInteger(event) && event > 0 ? { eventTime: event } : {}),
  };
}

/** The counters of a report, per direction (a report built without them: all as output). */
const counterReport = (r: AccountingReport, stop: boolean): CounterReport => ({
  status: stop ? 'Stop' : r.status === 'Start' ? 'Start' : 'Interim-Update',
  inputBytes: r.inputBytes ?? 0,
  outputBytes: r.outputBytes ?? r.totalBytes - (r.inputBytes ?? 0),
  sessionTimeS: r.sessionTimeS,
  ...(r.eventTime !== undefined ? { eventTime: r.eventTime } : {}),
});

/** A session or code of another reseller than the router's: a router counts only its own. */
function foreign(what: string, resellerId: string, caller: Caller | undefined, nasId: string): boolean {
  if (!caller || resellerId === caller.reseller_id) return false;
  log.warn(`accounting ignored: a ${what} of another reseller`, { nasId });
  return true;
}

/**
 * Stores a report of the router judged as `caller` (undefined: sent by none, as a test does).
 * An Interim-Update is first tried in one write (the store's `interim`); what it refused comes
 * back as stored, and a report that changes nothing ends there. Anything else reads the session
 * and its code together and writes them in one conditional write, read again when another
 * report got there first.
 */
export async function account(
  report: AccountingReport,
  caller: Caller | undefined,
  x: Exchange,
): Promise<AccountingOutcome> {
  const { store, nowMs } = x;
  const { uniqueId, userName } = report;
  if (report.status === 'Accounting-On' || report.status === 'Accounting-Off') {
    // The NAS restarted (or is going down): none of its sessions survives. Only its current
    // holder's: a session left by an earlier holder of a reused NAS id is not this router's.
    return store.closeNas(report.nasId, nowMs, caller?.reseller_id);
  }
  // No code of ours is that long (nor would DynamoDB take it as a key): nothing to count.
  if (!uniqueId || !userName || normalizeCode(userName).length > 64) return 'ignored';
  const nowIso = new Date(nowMs).toISOString();
  const lease = Math.floor(nowMs / 1000) + x.rules.leaseS;
  const stop = report.status === 'Stop';
  if (report.status === 'Interim-Update') {
    const counters = counterReport(report, false);
    const one = await store.interim(
      { ...counters, uniqueId, ...(caller ? { routerResellerId: caller.reseller_id } : {}) },
      nowIso,
    );
    if (one.stored) return 'stored';
    if (one.read && foreign('session', one.read.reseller_id, caller, report.nasId)) return 'ignored';
    if (one.read && !advance(one.read, counters).changed) return 'unchanged';
  }
  const codeName = (await macSessionCode(report, uniqueId, caller, x)) ?? normalizeCode(userName);
  return untilSettled<AccountingOutcome>(async () => {
    // The session and its code in one round trip: a first report needs the code's reseller.
    const { session: read, code } = await store.reportReads(uniqueId, codeName);
    if (!read) {
      // A code that does not exist (a NAS with local users, a typo it let through): nothing to count.
      if (!code || foreign('code', code.reseller_id, caller, report.nasId)) return 'ignored';
      const session = firstSession(report, uniqueId, code, codeName, stop, nowIso);
      // Stale: created meanwhile by a retransmission of the same report; read it and go on as a later report.
      if (!(await store.openSession(session, lease, code.grants !== undefined))) return undefined;
      await store.usedUp(code, report.totalBytes, session.id, nowMs);
      return 'stored';
    }
    if (foreign('session', read.reseller_id, caller, report.nasId)) return 'ignored';
    const { next, changed, newSegment } = advance(read, counterReport(report, stop));
    const closes = stop && read.status === 'open';
    // A session closed as silent or by its NAS's restart that reports again is on after all, and
    // a reused session id starts a new one: either way it is open and holds its device's lease.
    // A session closed by its NAS id's release stays closed: the NAS id may be another's now.
    const reopens =
      !stop &&
      read.status === 'closed' &&
      changed &&
      read.close_reason !== 'released' &&
      (read.close_reason !== 'stop' || newSegment);
    // A retransmission of a first report changes nothing. Found uncounted, it is left to the
    // stream consumer: the session's record is in the stream, delivered at least once.
    if (!changed && !closes) return 'unchanged';
    // What the code counted of it (the stream counts its interims): the bytes added go from there.
    const countedAsRead = code ? countedEntryOf(code, read.id) : undefined;
    // Stale: another report of this session, or the stream's count on its code, since the read.
    const written = await store.writeReport(
      read,
      { ...next, nowIso, lease, ...(stop ? { close: 'stop' as const } : {}), reopen: reopens },
      code?.grants !== undefined,
      code ? { asRead: countedAsRead } : undefined,
    );
    if (!written) return undefined;
    if (code)
      await store.usedUp(code, next.total_bytes - (countedAsRead ?? read.total_bytes), read.id, nowMs);
    return 'stored';
  }, 'accounting: the session kept changing under this report');
}

/** A session's first report (a Start, or an Interim/Stop whose Start was lost). */
function firstSession(
  report: AccountingReport,
  uniqueId: string,
  code: AccessCode,
  codeName: string,
  stop: boolean,
  nowIso: string,
): RadiusSession {
  return {
    id: uniqueId,
    code: code.code,
    nas_id: report.nasId,
    reseller_id: code.reseller_id,
    ...(code.subscriber_id ? { subscriber_id: code.subscriber_id } : {}),
    device: deviceKey(report),
    // A MAC login's session is the MAC's at the router: a Disconnect-Request names it so.
    ...(report.userName !== codeName && macLoginOf(report) ? { user_name: report.userName } : {}),
    ...(report.acctSessionId ? { acct_session_id: report.acctSessionId } : {}),
    ...(report.nasIp ? { nas_ip: report.nasIp } : {}),
    status: stop ? 'closed' : 'open',
    total_bytes: report.totalBytes,
    input_bytes: report.inputBytes ?? 0,
    output_bytes: report.outputBytes ?? report.totalBytes,
    ...(report.eventTime !== undefined ? { event_time: report.eventTime } : {}),
    session_time_s: report.sessionTimeS,
    started_at: nowIso,
    last_report_at: nowIso,
    ...(stop ? { closed_at: nowIso, close_reason: 'stop' as const } : {}),
  };
}

/**
 * The code a MAC login's session counts against (its User-Name is the device's MAC, not a code):
 * the session's own once recorded; before that, the code bound to the device at the router's
 * reseller that holds the device's lease (the login just wrote it), else the first bound one.
 * Undefined for a report that is no MAC login's.
 */
async function macSessionCode(
  r: AccountingReport,
  uniqueId: string,
  caller: Caller | undefined,
  x: Exchange,
): Promise<string | undefined> {
  const mac = macLoginOf(r);
  if (!mac || !caller) return undefined;
  const known = await x.store.session(uniqueId);
  if (known) return known.code;
  const bound = await x.store.bindings(caller.reseller_id, mac);
  if (bound.length <= 1) return bound[0];
  const key = deviceKey(r);
  const codes = await x.store.codes(bound);
  const leased = codes.find((c) => (c.devices?.[key] ?? 0) > Math.floor(x.nowMs / 1000));
  return leased?.code ?? bound[0];
}
