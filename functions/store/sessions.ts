// The writes of RADIUS sessions: opened, reported and counted, as transaction items.

import { monthOf } from '../core/clock.js';
import { Access } from './access-codes.js';
import { addToCounter, counterKeyOf, countItems, scopeOf } from './counters.js';
import type { TxItem } from './entity.js';
import { exists } from './entity.js';
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
export const countedOf = (sessionId: string): string => `counted:${sessionId}`;

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
  const sets = [
    ...(lease === 'release' ? [] : ['devices.#dev = :lease']),
    ...(reserved && addBytes > 0 ? ['grants.#dev = if_not_exists(grants.#dev, :zero) - :bytes'] : []),
    ...(counted && !counted.remove ? ['#counted = :counted'] : []),
  ];
  const removes = [
    ...(lease === 'release' ? ['devices.#dev'] : []),
    ...(counted?.remove ? ['#counted'] : []),
  ];
  const expression = [
    ...(sets.length ? [`SET ${sets.join(', ')}`] : []),
    ...(removes.length ? [`REMOVE ${removes.join(', ')}`] : []),
    ...(addBytes > 0 ? ['ADD used_bytes :bytes'] : []),
  ].join(' ');
  const guard = counted
    ? counted.asRead === undefined
      ? 'attribute_not_exists(#counted)'
      : '#counted = :countedRead'
    : undefined;
  return Access.tx.update(
    { code: s.code },
    {
      expression,
      names: { '#dev': s.device, ...(counted ? { '#counted': countedOf(s.id) } : {}) },
      values: {
        ...(lease === 'release' ? {} : { ':lease': lease }),
        ...(addBytes > 0 ? { ':bytes': addBytes } : {}),
        ...(reserved && addBytes > 0 ? { ':zero': 0 } : {}),
        ...(counted && !counted.remove ? { ':counted': counted.next } : {}),
        ...(counted?.asRead !== undefined ? { ':countedRead': counted.asRead } : {}),
      },
    },
    guard
      ? {
          expression: `${exists.expression} AND ${guard}`,
          names: { ...exists.names },
          values: { ...exists.values },
        }
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
      {
        expression: 'attribute_exists(uncounted) AND #status = :status',
        names: { '#status': 'status' },
        values: { ':status': s.status },
      },
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
  next: Pick<
    RadiusSession,
    'total_bytes' | 'session_time_s' | 'base_bytes' | 'input_bytes' | 'output_bytes' | 'event_time'
  > & {
    nowIso: string;
    lease: number;
    close?: RadiusSession['close_reason'];
    reopen?: boolean;
  },
  reserved = false,
  /**
   * A report's own write (not a bulk close): the code's `countedOf` entry as read (undefined:
   * none). The bytes added are then the new total less what the code counted (the stream may
   * not have counted the last interims yet), and the entry follows: set while the session is
   * open, removed by its Stop.
   */
  counted?: { asRead: number | undefined },
): Record<string, TxItem> {
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
    total_bytes: Math.max(next.total_bytes, read.total_bytes),
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
  return {
    session: Session.tx.update(
      read,
      {
        set,
        read,
      },
      {
        expression: `total_bytes = :read AND #status = :status AND session_time_s = :time AND ${
          read.event_time === undefined ? 'attribute_not_exists(event_time)' : 'event_time = :event'
        } AND ${read.uncounted ? 'attribute_exists(uncounted)' : 'attribute_not_exists(uncounted)'}`,
        names: { '#status': 'status' },
        values: {
          ':read': read.total_bytes,
          ':status': read.status,
          ':time': read.session_time_s,
          ...(read.event_time === undefined ? {} : { ':event': read.event_time }),
        },
      },
    ),
    code: deviceItem(read, open ? next.lease : 'release', added, reserved, entry),
    // An uncounted session was never counted open: it is counted now as it will be.
    ...(read.uncounted ? countedItems(read, open) : {}),
    ...(!read.uncounted && closing ? countOpen(read, -1) : {}),
    ...(!read.uncounted && reopening ? countOpen(read, 1) : {}),
  };
}
