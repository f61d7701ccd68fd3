// RADIUS accounting: Start, Interim-Update, Stop and Accounting-On/Off applied to the session and its code.

import { log } from '../core/log.js';
import { Access } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { bindingsOfMac } from '../store/mac-bindings.js';
import { Nas, type NasRecord } from '../store/nas.js';
import { Router, type RouterRecord } from '../store/routers.js';
import {
  countedEntryOf,
  openSessionItems,
  type RadiusSession,
  reportItems,
  Session,
} from '../store/sessions.js';
import { transactIfCurrent, untilSettled } from '../store/transact.js';
import { bytesOf, deviceKey, macLoginOf, normalizeCode } from './attributes.js';
import { closeSessionsOfNas, type NasCloseResult } from './closing.js';
import { disconnectOthersWhenUsedUp } from './disconnect.js';
import {
  holdRouter,
  judgeHeld,
  judgeRouterOf,
  type RouterOfRequest,
  type RouterRefusal,
} from './identity.js';
import { interimInOneWrite } from './interim.js';
import { advance, type CounterReport } from './session-counters.js';
import { radiusSettings } from './settings.js';

/**
 * Accounting: every report carries the session's RUNNING totals (never increments). One
 * record per Acct-Unique-Session-Id keeps the largest totals seen, and only the difference
 * between a new total and the stored one is added to the code's usage, in the same
 * transaction, conditioned on the stored total as read. A replay, a duplicate or a report
 * arriving out of order adds nothing; a NAS retransmission after a lost answer adds nothing.
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
  /**
   * The reseller of the router that sent the report (functions/radius/identity.ts). A report
   * about another reseller's code or session is ignored: a router counts only its own.
   */
  routerResellerId?: string;
  /** Event-Timestamp, epoch seconds (FreeRADIUS sends it as Hotspot-Event-Time). */
  eventTime?: number;
}

/**
 * Beyond this a report's total is no session's (Acct-Input-Gigawords = 4294967295 is 16 EiB):
 * the report is answered and ignored, never a 5xx the NAS would resend forever.
 */
export const MAX_REPORT_BYTES = 2 ** 50;

export type AccountingOutcome = 'stored' | 'unchanged' | 'ignored' | NasCloseResult;

/** The report of the request attributes FreeRADIUS sent. */
export function reportOf(attrs: Map<string, string>): AccountingReport | undefined {
  const status = attrs.get('Acct-Status-Type');
  const statuses: AccountingReport['status'][] = [
    'Start',
    'Interim-Update',
    'Stop',
    'Accounting-On',
    'Accounting-Off',
  ];
  if (!statuses.includes(status as AccountingReport['status'])) return undefined;
  const nasId = attrs.get('NAS-Identifier') ?? '';
  // No NAS id, or none of ours could be this long: nothing to close or count against.
  if (!nasId || nasId.length > 64) return undefined;
  const time = Number(attrs.get('Acct-Session-Time') ?? 0);
  const inputBytes = bytesOf(attrs, 'Input');
  const outputBytes = bytesOf(attrs, 'Output');
  if (!(inputBytes + outputBytes <= MAX_REPORT_BYTES)) return undefined;
  const event = Number(attrs.get('Hotspot-Event-Time'));
  return {
    status: status as AccountingReport['status'],
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

/**
 * Stores a report. `router`: the router that sent it, still to be checked (identity.ts): read
 * with the session and its code in the first BatchGetItem and judged before either is looked at
 * (a refused router's report writes nothing); read alone first for a NAS's restart or a MAC
 * login, whose first reads need the router's reseller.
 */
export async function account(
  report: AccountingReport,
  nowMs: number,
  router?: RouterOfRequest,
): Promise<AccountingOutcome | { routerRefused: RouterRefusal }> {
  const { uniqueId, userName } = report;
  // A router held in memory is judged here, without a read (identity.ts, `heldRouters`).
  const held = router && judgeHeld(router);
  if (held) {
    if ('refused' in held) return { routerRefused: held.refused };
    return account({ ...report, routerResellerId: held.router.reseller_id }, nowMs);
  }
  const mergeable =
    report.status !== 'Accounting-On' &&
    report.status !== 'Accounting-Off' &&
    uniqueId &&
    userName &&
    normalizeCode(userName).length <= 64 &&
    !macLoginOf(report);
  if (router && !mergeable) {
    const judged = await judgeRouterOf(router);
    if ('refused' in judged) return { routerRefused: judged.refused };
    return account({ ...report, routerResellerId: judged.router.reseller_id }, nowMs);
  }
  if (report.status === 'Accounting-On' || report.status === 'Accounting-Off') {
    // The NAS restarted (or is going down): none of its sessions survives. Only its current
    // holder's: a session left by an earlier holder of a reused NAS id is not this router's.
    return closeSessionsOfNas(report.nasId, nowMs, { resellerId: report.routerResellerId });
  }
  // No code of ours is that long (nor would DynamoDB take it as a key): nothing to count.
  if (!uniqueId || !userName || normalizeCode(userName).length > 64) return 'ignored';
  const settings = radiusSettings();
  const nowIso = new Date(nowMs).toISOString();
  const lease = Math.floor(nowMs / 1000) + settings.RADIUS_LEASE_S;
  const stop = report.status === 'Stop';
  // An Interim of a session the stream counts: one write, and nothing else when it fits
  // (interim.ts). What it refused comes back as stored: a report that changes nothing ends there.
  if (report.status === 'Interim-Update' && !router) {
    const counters = counterReport(report, false);
    const one = await interimInOneWrite(
      {
        ...counters,
        uniqueId,
        ...(report.routerResellerId !== undefined ? { routerResellerId: report.routerResellerId } : {}),
      },
      nowIso,
    );
    if (one.stored) return 'stored';
    const read = one.read;
    if (read && report.routerResellerId !== undefined && read.reseller_id !== report.routerResellerId) {
      log.warn('accounting ignored: a session of another reseller', { nasId: report.nasId });
      return 'ignored';
    }
    if (read && !advance(read, counters).changed) return 'unchanged';
  }
  const codeName = (await macSessionCode(report, uniqueId, nowMs)) ?? normalizeCode(userName);
  // Judged on the first read only; later attempts go on with its reseller.
  let pending = router;
  let routerResellerId = report.routerResellerId;
  return untilSettled(async (): Promise<AccountingOutcome | { routerRefused: RouterRefusal } | undefined> => {
    // The session and its code in one round trip: a first report needs the code's reseller.
    const check = pending;
    pending = undefined;
    const judging = check?.id && check.nasId;
    const [read, code, routerRead, nasRead] = await batchGet(
      [
        [Session, { id: uniqueId }],
        [Access, { code: codeName }],
        ...(judging
          ? ([
              [Router, { router_id: check.id }],
              [Nas, { nas_id: check.nasId }],
            ] as const)
          : []),
      ],
      { consistent: true },
    );
    if (check) {
      if (judging)
        holdRouter(check, routerRead as RouterRecord | undefined, nasRead as NasRecord | undefined);
      const judged = check.judge(routerRead as RouterRecord | undefined, nasRead as NasRecord | undefined);
      if ('refused' in judged) return { routerRefused: judged.refused };
      routerResellerId = judged.router.reseller_id;
    }
    if (!read) {
      // A code that does not exist (a NAS with local users, a typo it let through): nothing to count.
      if (!code) return 'ignored';
      if (routerResellerId !== undefined && code.reseller_id !== routerResellerId) {
        log.warn('accounting ignored: a code of another reseller', { nasId: report.nasId });
        return 'ignored';
      }
      const session: RadiusSession = {
        id: uniqueId,
        code: code.code,
        nas_id: report.nasId,
        reseller_id: code.reseller_id,
        subscriber_id: code.subscriber_id,
        device: deviceKey(report),
        // A MAC login's session is the MAC's at the router: a Disconnect-Request names it so.
        ...(userName !== codeName && macLoginOf(report) ? { user_name: userName } : {}),
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
      // Stale: created meanwhile by a retransmission of the same report; read it and go on as a later report.
      const items = openSessionItems(session, lease, {}, code.grants !== undefined);
      if (!(await transactIfCurrent(items, 'session'))) return undefined;
      // Not counted here: the table's stream consumer counts it (functions/radius/session-counts.ts),
      // usually within a second, or its next report does if that comes first (`reportItems`). A
      // third DynamoDB call here cost the API about 0.5 ms of CPU a Start (docs/radius.md).
      await disconnectOthersWhenUsedUp(code, report.totalBytes, session.id, nowMs);
      return 'stored';
    }
    if (routerResellerId !== undefined && read.reseller_id !== routerResellerId) {
      log.warn('accounting ignored: a session of another reseller', { nasId: report.nasId });
      return 'ignored';
    }
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
    if (!changed && !closes) {
      // A retransmission of a first report. Found uncounted, it is left to the stream consumer
      // too: the session's record is in the stream, delivered at least once (retried, then
      // kept in the consumer's dead-letter queue with an alarm), so counting here would only
      // race the consumer for the same item with a call the NAS waits for.
      return 'unchanged';
    }
    // Stale: another report of this session was stored since the read; read again.
    // What the code counted of it (the stream counts its interims): the bytes added go from there.
    const countedAsRead = code ? countedEntryOf(code, read.id) : undefined;
    const items = reportItems(
      read,
      { ...next, nowIso, lease, ...(stop ? { close: 'stop' as const } : {}), reopen: reopens },
      code?.grants !== undefined,
      code ? { asRead: countedAsRead } : undefined,
    );
    // Stale too when the stream counted an interim on the code since the read.
    if (!(await transactIfCurrent(items, ['session', 'code']))) return undefined;
    const added = next.total_bytes - (countedAsRead ?? read.total_bytes);
    if (code) await disconnectOthersWhenUsedUp(code, added, read.id, nowMs);
    return 'stored';
  }, 'accounting: the session kept changing under this report');
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
  nowMs: number,
): Promise<string | undefined> {
  const mac = macLoginOf(r);
  if (!mac || r.routerResellerId === undefined) return undefined;
  const known = await Session.get({ id: uniqueId }, { consistent: true });
  if (known) return known.code;
  const bindings = await bindingsOfMac(r.routerResellerId, mac);
  if (bindings.length <= 1) return bindings[0]?.code;
  const key = deviceKey(r);
  const codes = await Promise.all(bindings.map((b) => Access.get({ code: b.code }, { consistent: true })));
  const leased = codes.find((c) => (c?.devices?.[key] ?? 0) > Math.floor(nowMs / 1000));
  return leased?.code ?? bindings[0]?.code;
}

// The bulk closes live in ./closing.ts; re-exported for the callers that knew them here.
