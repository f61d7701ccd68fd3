// The writes of RADIUS sessions: opened, reported and counted, as transaction items.

import { monthOf } from '../core/clock.js';
import { Access } from './access-codes.js';
import { addToCounter, counterKeyOf, countItems, scopeOf } from './counters.js';
import type { TxItem } from './entity.js';
import { allOf, exists } from './entity.js';
import { revenueSessionsStarted, sessionCountShardOf } from './revenue.js';
import { type RadiusSession, Session } from './session-entity.js';

// The session's declaration and its reads, for the modules that know sessions by this one.
export { getSession, type RadiusSession, Session } from './session-entity.js';
export * from './session-reads.js';

/** The counters a session counts in: the whole platform, its reseller, its subscriber. */
export const counterScopes = (s: Pick<RadiusSession, 'reseller_id' | 'subscriber_id'>): string[] => [
  scopeOf.all(),
  scopeOf.reseller(s.reseller_id),
  ...(s.subscriber_id ? [scopeOf.subscriber(s.subscriber_id)] : []),
];

const countOpen = (s: RadiusSession, by: 1 | -1) => countItems('open', counterScopes(s), by, s.id);

/**
 * The code's attribute holding what it counted of a session whose later reports the stream
 * counts (functions/radius/code-usage.ts): a flat attribute per session, as a map entry would
 * need the map first.
 */
export const countedOf = (sessionId: string): `counted:${string}` => `counted:${sessionId}`;

/** A code's `countedOf` entry for a session, as read (undefined: none). */
export const countedEntryOf = (code: object, sessionId: string): number | undefined => {
  const v = (code as Record<string, unknown>)[countedOf(sessionId)];
  return typeof v === 'number' ? v : undefined;
};

/**
 * What a code counted of a session whose later reports the stream counts (`countedOf`):
 * `asRead` the entry as read (undefined: none), `next` the session's total to record, `remove`
 * once its Stop closed it.
 */
export interface CountedEntry {
  asRead: number | undefined;
  next: number;
  remove?: boolean;
}

/**
 * The lease of a device on its code, or its release, for the same transaction; the bytes added
 * to the code's usage and taken off the device's data reservation (`grants`, when the code has
 * that map: a code logged in through the API does); and, for a session counted by the stream,
 * its entry in `counted`, conditioned on the entry as read (the stream consumer writes it too).
 */
function deviceItem(
  s: RadiusSession,
  lease: number | 'release',
  addBytes: number,
  reserved: boolean,
  counted?: CountedEntry,
): TxItem {
  const entry = countedOf(s.id);
  const w = Access.where;
  return Access.tx.update(
    { code: s.code },
    {
      ...(counted ? { set: { [entry]: counted.remove ? undefined : counted.next } } : {}),
      entries: {
        devices: { [s.device]: lease === 'release' ? undefined : lease },
        ...(reserved && addBytes > 0 ? { grants: { [s.device]: { add: -addBytes } } } : {}),
      },
      ...(addBytes > 0 ? { add: { used_bytes: addBytes } } : {}),
    },
    counted
      ? allOf(exists, counted.asRead === undefined ? w.lacks(entry) : w.compare(entry, '=', counted.asRead))
      : exists,
  );
}

/**
 * The first report of a session (a Start, or an Interim/Stop whose Start was lost): the
 * session, marked `uncounted`, and the bytes it already used added to its code, all or nothing.
 * No shared counter is in it: a Start's transaction conflicts with nothing but its own
 * session's retransmissions. Cancelled on `session` when it exists already.
 */
// Access: TransactWriteItems [Put SESSION#<id> not exists, Update CODE#<code> ADD used_bytes + device lease + SET counted:<id>].
export function openSessionItems(
  s: RadiusSession,
  lease: number,
  /** Items of the caller's own, none of them a counter (a test's). */
  extra: Record<string, TxItem> = {},
  reserved = false,
): Record<string, TxItem> {
  return {
    session: Session.tx.create({
      ...s,
      uncounted: true,
      ...(s.status === 'open' ? { by_stream: true } : {}),
    }),
    // An open session's later reports are counted on its code by the stream: it starts counted at its first total.
    code: deviceItem(
      s,
      s.status === 'open' ? lease : 'release',
      s.total_bytes,
      reserved,
      s.status === 'open' ? { asRead: undefined, next: s.total_bytes } : undefined,
    ),
    ...extra,
  };
}

/** The name of a session's own item in the transaction of `countSessionsItems`. */
// Access: none (a name).
export const countGuardOf = (id: string): string => `session:${id}`;

/** One ADD counting a session makes, named by the counter item it lands on. */
interface CountedAdd {
  name: string;
  item: (n: number) => TxItem;
}

/** What counting a session adds: its open counters when it is open, and its reseller's month. */
function countedAdds(s: RadiusSession): CountedAdd[] {
  const month = monthOf(s.started_at);
  const shard = sessionCountShardOf(s.id);
  return [
    ...(s.status === 'open'
      ? counterScopes(s).map((scope) => {
          const key = counterKeyOf(scope, s.id);
          return {
            name: `open:${scope}#${key.shard ?? '-'}`,
            item: (n: number) => addToCounter('open', key, n),
          };
        })
      : []),
    {
      name: `month:${s.reseller_id}#${month}#${shard}`,
      item: (n: number) => revenueSessionsStarted(s.reseller_id, month, shard, n),
    },
  ];
}

/**
 * The names of the items a session brings to `countSessionsItems`' transaction: its own and
 * the counter items it adds to (several sessions share most of these). The caller keeps a
 * transaction within DynamoDB's 100 items with them.
 */
// Access: none (names).
export const countedItemNamesOf = (s: RadiusSession): string[] => [
  countGuardOf(s.id),
  ...countedAdds(s).map((a) => a.name),
];

/**
 * Counts sessions their first report left uncounted, in one transaction: each session's
 * `uncounted` removed, conditioned on it still being there and on the status as read (item
 * `session:<id>`, `countGuardOf`), and ONE ADD per counter item touched, the sessions' adds
 * summed: the open counters of those still open, and their resellers' month counts. A session
 * another writer counted or changed meanwhile (a later report counts a session it finds
 * uncounted: `reportItems`) fails its condition and cancels the transaction, named: the caller
 * drops it and sends the rest again. So each session is counted once, whoever wins.
 */
// Access: TransactWriteItems [per session: Update SESSION#<id> REMOVE uncounted (condition uncounted, status as read)] + [per counter item: Update STATS#<scope>#<shard> ADD open n (open sessions), Update REVENUE#<reseller>/MONTH#<m>#S<shard> ADD sessions_count n]; at most 100 items (the caller's grouping).
export function countSessionsItems(sessions: readonly RadiusSession[]): Record<string, TxItem> {
  const items: Record<string, TxItem> = {};
  const sums = new Map<string, { n: number; item: (n: number) => TxItem }>();
  for (const s of sessions) {
    items[countGuardOf(s.id)] = Session.tx.update(
      s,
      { set: { uncounted: undefined }, read: s },
      allOf(Session.where.has('uncounted'), Session.where.is('status', s.status)),
    );
    for (const add of countedAdds(s)) {
      const sum = sums.get(add.name);
      sums.set(add.name, { n: (sum?.n ?? 0) + 1, item: add.item });
    }
  }
  for (const [name, { n, item }] of sums) items[name] = item(n);
  return items;
}

/** What a later report adds for a session it finds uncounted (see `countSessionsItems`). */
const countedItems = (s: RadiusSession, open: boolean): Record<string, TxItem> =>
  Object.fromEntries(countedAdds({ ...s, status: open ? 'open' : 'closed' }).map((a) => [a.name, a.item(1)]));

/** What a later report writes of its session (computed from the one read: functions/radius/session-counters.ts). */
export type ReportNext = Pick<
  RadiusSession,
  'total_bytes' | 'session_time_s' | 'base_bytes' | 'input_bytes' | 'output_bytes' | 'event_time'
> & {
  nowIso: string;
  /** The device's lease (epoch seconds) while the session stays open. */
  lease: number;
  close?: RadiusSession['close_reason'];
  reopen?: boolean;
};

/**
 * What a later report changes, whatever store holds the session (the table here, an edge's
 * replica in memory: functions/edge-service/replica-store.ts): whether it closes or reopens the
 * session, the bytes it adds to the code (from what the code counted of it, `counted`, else the
 * session's total as read), and the session's attributes after it.
 */
export function reportChange(
  read: RadiusSession,
  next: ReportNext,
  counted?: { asRead: number | undefined },
) {
  const closing = next.close !== undefined && read.status === 'open';
  const reopening = next.reopen === true && read.status === 'closed' && next.close === undefined;
  const open = reopening || (read.status === 'open' && !closing);
  const base = counted?.asRead ?? read.total_bytes;
  const total = Math.max(next.total_bytes, read.total_bytes);
  const added = Math.max(0, total - base);
  const entry: CountedEntry | undefined = counted && {
    asRead: counted.asRead,
    next: Math.max(total, base),
    ...(open ? {} : { remove: true }),
  };
  // The new last report moves an open session in the sweep's index; a close leaves both.
  const set: Partial<RadiusSession> = {
    total_bytes: total,
    session_time_s: next.session_time_s,
    last_report_at: next.nowIso,
    ...(next.base_bytes !== undefined ? { base_bytes: next.base_bytes } : {}),
    ...(next.input_bytes !== undefined ? { input_bytes: next.input_bytes } : {}),
    ...(next.output_bytes !== undefined ? { output_bytes: next.output_bytes } : {}),
    ...(next.event_time !== undefined ? { event_time: next.event_time } : {}),
    ...(closing ? { status: 'closed', closed_at: next.nowIso, close_reason: next.close } : {}),
    ...(reopening ? { status: 'open', closed_at: undefined, close_reason: undefined } : {}),
    // Left uncounted by its first report: counted here (see `countSessionsItems`).
    ...(read.uncounted ? { uncounted: undefined } : {}),
    // Counted by the stream from now on, while open.
    ...(entry && open ? { by_stream: true } : {}),
  };
  return { closing, reopening, open, added, set, entry };
}

/**
 * A later report: the new totals (computed by the caller from the ones read: see
 * functions/radius/session-counters.ts), the difference added to the code, and on close the
 * counters lowered and the device released. `reopen`: a session closed as silent or by its
 * NAS's restart reports again, so it is open again and takes its device's lease back.
 * Cancelled on `session` when another report changed the session since it was read.
 */
// Access: TransactWriteItems [Update SESSION#<id> (condition totals, time, event, status and uncounted as read), Update CODE#<code> ADD used_bytes, Update STATS#<scope>[#<shard>] ADD open -1 (close) / +1 (reopen, or an uncounted session left open), Update REVENUE#<reseller>/MONTH#<m>#<shard> ADD sessions_count (an uncounted session)]; openByNas keys rewritten (the gsi1 ones of before removed).
export function reportItems(
  read: RadiusSession,
  next: ReportNext,
  reserved = false,
  /**
   * A report's own write (not a bulk close): the code's `countedOf` entry as read (undefined:
   * none). The bytes added are then the new total less what the code counted (the stream may
   * not have counted the last interims yet), and the entry follows: set while the session is
   * open, removed by its Stop.
   */
  counted?: { asRead: number | undefined },
): Record<string, TxItem> {
  const { closing, reopening, open, added, set, entry } = reportChange(read, next, counted);
  const w = Session.where;
  return {
    session: Session.tx.update(
      read,
      {
        set,
        read,
      },
      allOf(
        w.is('total_bytes', read.total_bytes),
        w.is('status', read.status),
        w.is('session_time_s', read.session_time_s),
        read.event_time === undefined ? w.lacks('event_time') : w.is('event_time', read.event_time),
        read.uncounted ? w.has('uncounted') : w.lacks('uncounted'),
      ),
    ),
    code: deviceItem(read, open ? next.lease : 'release', added, reserved, entry),
    // An uncounted session was never counted open: it is counted now as it will be.
    ...(read.uncounted ? countedItems(read, open) : {}),
    ...(!read.uncounted && closing ? countOpen(read, -1) : {}),
    ...(!read.uncounted && reopening ? countOpen(read, 1) : {}),
  };
}

/** What an Interim-Update says of its session: running totals, never increments. */
export interface InterimReport {
  uniqueId: string;
  inputBytes: number;
  outputBytes: number;
  sessionTimeS: number;
  eventTime?: number;
  /** The reseller of the router that sent it: a session of another reseller is not written. */
  routerResellerId?: string;
}

/**
 * An Interim-Update in one write, with no read before it: one UpdateItem of the session,
 * conditioned on what makes its new totals plain to compute in DynamoDB itself. The session is
 * counted by the stream (`by_stream`: its code's usage, device lease and data limit follow from
 * the table's stream, functions/radius/code-usage.ts), it is open, the report is later in the
 * same segment (its session time grew, its Event-Timestamp is not earlier than the stored one)
 * and neither direction's counter fell (no 32-bit wrap to judge). The totals are written as the
 * NAS reported them (absolute values): `total_bytes` is the earlier segments' bytes plus both
 * directions.
 *
 * Anything else fails the condition, and DynamoDB answers the session as stored in the same call:
 * a replay, a duplicate, a late report, a wrap, a new segment, a closed session, another
 * reseller's, one written before `by_stream`, or none. The caller judges it with the full rules
 * (functions/radius/session-counters.ts) and, when the report changes something, writes it the
 * long way (`reportItems`).
 */
// Access: UpdateItem pk=SESSION#<id> SET totals, time, last report (condition by_stream, open, later, no fall, reseller), ReturnValuesOnConditionCheckFailure ALL_OLD.
export async function interimInOneWrite(
  r: InterimReport,
  nowIso: string,
): Promise<{ stored: true } | { stored: false; read?: RadiusSession }> {
  const w = Session.where;
  const out = await Session.updateOrRead(
    { id: r.uniqueId },
    {
      set: {
        input_bytes: r.inputBytes,
        output_bytes: r.outputBytes,
        session_time_s: r.sessionTimeS,
        last_report_at: nowIso,
        ...(r.eventTime !== undefined ? { event_time: r.eventTime } : {}),
      },
      sum: { total_bytes: ['base_bytes', r.inputBytes + r.outputBytes] },
      // The sweep's index keeps the last full write's report time as its sort key, a lower bound
      // the sweep checks against `last_report_at` itself (session-reads.ts): an interim moves no key.
      keepsIndexes: true,
    },
    allOf(
      w.is('by_stream', true),
      w.is('status', 'open'),
      w.compare('session_time_s', '<', r.sessionTimeS),
      w.compare('input_bytes', '<=', r.inputBytes),
      w.compare('output_bytes', '<=', r.outputBytes),
      ...(r.eventTime !== undefined
        ? [w.lacksOr('event_time', w.compare('event_time', '<=', r.eventTime))]
        : []),
      ...(r.routerResellerId !== undefined ? [w.is('reseller_id', r.routerResellerId)] : []),
    ),
  );
  return out.updated ? { stored: true } : { stored: false, ...(out.read ? { read: out.read } : {}) };
}
