import { monthOf } from '../core/clock.js';
import { Access } from './access-codes.js';
import { addToCounter, counterKeyOf, countItems, scopeOf } from './counters.js';
import { batchGet, entity, type TxItem } from './entity.js';
import { revenueSessionsStarted, sessionCountShardOf } from './revenue.js';
import { shardOf } from './shards.js';

/**
 * A RADIUS session, one per `Acct-Unique-Session-Id`: the running totals the NAS reported
 * (only ever raised), and whether it is open. Open sessions carry two sparse index keys: by
 * NAS (Accounting-On/Off closes them) and by last report (the sweep closes silent ones).
 */
export interface RadiusSession {
  id: string;
  code: string;
  nas_id: string;
  reseller_id: string;
  subscriber_id?: string;
  device: string;
  /** The User-Name the NAS knows the session by, when it is not the code (a MAC login: the MAC). */
  user_name?: string;
  /** The NAS's own Acct-Session-Id and source address: what a Disconnect-Request names. */
  acct_session_id?: string;
  nas_ip?: string;
  status: 'open' | 'closed';
  /** Bytes (input + output) the NAS reported last: a running total, never an increment. */
  total_bytes: number;
  session_time_s: number;
  /** Bytes of the earlier segments (the NAS reused this session id after a counter reset). */
  base_bytes?: number;
  /** The current segment's totals per direction, unwrapped (a NAS without Gigawords wraps at 4 GiB). */
  input_bytes?: number;
  output_bytes?: number;
  /** Event-Timestamp of the latest report (epoch seconds), when the NAS sends one. */
  event_time?: number;
  started_at: string;
  last_report_at: string;
  closed_at?: string;
  /**
   * `disconnect`: the router acknowledged the platform's Disconnect-Request (RFC 5176);
   * `released`: its NAS id's VLAN or site was released (final, as a Stop).
   */
  close_reason?: 'stop' | 'nas_restart' | 'stale' | 'disconnect' | 'released';
  /**
   * Not counted yet (the open counters, its reseller's month): set by the first report's
   * transaction, which holds no shared counter, and removed by the transaction that counts it:
   * the table's stream consumer's (functions/radius/session-counts.ts, `countSessionsItems`),
   * usually within a second, or the session's next report's if that comes first. Absent: counted
   * (a session written before counting moved out of the first report counted there).
   */
  uncounted?: true;
}

/** Closed sessions are kept this long (support, disputes), then DynamoDB's TTL removes them. */
const KEEP_S = 90 * 24 * 3600;

/**
 * Shards of the open sessions' index by last report. The index takes about 40 % of all the
 * writes of the accounting route (a moving key: a delete and a put per interim), so to keep
 * each shard under 2 % of the writes it needs 20 shards written evenly; a hash over a few
 * hundred live sessions (a small network, the load test) is not even, so 64, about 3 times
 * that. At the modelled peak: 1,430 writes/s over 64, about 22/s a shard against the 1,000 a
 * partition takes; the sweep reads them with 65 small Queries a page.
 */
export const OPEN_SHARDS = 64;

/**
 * A shard's partition; `unsharded`: the one partition of the sessions written before the
 * split. An open session moves to its shard at its next report; one that never reports again
 * stays there until the sweep closes it, so the sweep reads it too.
 */
const openPartition = (shard: number | 'unsharded') =>
  shard === 'unsharded' ? 'SESSIONS#OPEN' : `SESSIONS#OPEN#${shard}`;

export const Session = entity<RadiusSession>('radius_session')({
  key: (s: Pick<RadiusSession, 'id'>) => ({ pk: `SESSION#${s.id}`, sk: 'SESSION' }),
  indexes: {
    /**
     * Open sessions of a NAS (Accounting-On/Off closes them, a revoked code's are cut, the
     * captive API finds a device's). On gsi4, which holds only `id`, `code` and `device`: none
     * changes on an interim, so an interim writes no copy there (on gsi1, projecting ALL, each
     * interim rewrote the session's copy, about 667 writes/s at the modelled peak). Readers
     * that need more read the sessions by key (`fullSessions`). It was on gsi1: a session
     * opened before the move leaves gsi1 for gsi4 at its next report (`reportItems`).
     */
    openByNas: {
      gsi: 'gsi4',
      movedFrom: 'gsi1',
      pk: 'NAS#{nas_id}#OPEN',
      sk: '{id}',
      sparse: { status: 'open' },
    },
    /**
     * Every open session, by last report: the oldest are the silent ones (the sweep). Every
     * open, interim (its sort key moves: a delete and a put in the index) and close writes it,
     * about 1,430 writes/s at the modelled peak: one partition takes 1,000. So it is split
     * over OPEN_SHARDS partitions by a hash of the session id (about 22 writes/s each), and
     * the sweep reads them all (`silentSessions`).
     */
    openByLastReport: {
      gsi: 'gsi2',
      composite: ['last_report_at', 'id', 'status'],
      pk: (s: Pick<RadiusSession, 'id'> | { shard: number | 'unsharded' }) =>
        openPartition('shard' in s ? s.shard : shardOf(s.id, OPEN_SHARDS)),
      sk: (s: RadiusSession) => `${s.last_report_at}#${s.id}`,
      when: (s: RadiusSession) => s.status === 'open',
    },
  },
  ttl: (s) => Math.floor(Date.parse(s.started_at) / 1000) + KEEP_S,
});

/** The counters a session counts in: the whole platform, its reseller, its subscriber. */
export const counterScopes = (s: Pick<RadiusSession, 'reseller_id' | 'subscriber_id'>): string[] => [
  scopeOf.all(),
  scopeOf.reseller(s.reseller_id),
  ...(s.subscriber_id ? [scopeOf.subscriber(s.subscriber_id)] : []),
];

const countOpen = (s: RadiusSession, by: 1 | -1) => countItems('open', counterScopes(s), by, s.id);

// Access: GetItem pk=SESSION#<id> (strongly consistent: the next write is conditioned on it).
export const getSession = (id: string): Promise<RadiusSession | undefined> =>
  Session.get({ id }, { consistent: true });

/**
 * The lease of a device on its code, or its release, for the same transaction; the bytes added
 * to the code's usage and taken off the device's data reservation (`grants`, when the code has
 * that map: a code logged in through the API does).
 */
function deviceItem(
  s: RadiusSession,
  lease: number | 'release',
  addBytes: number,
  reserved: boolean,
): TxItem {
  const sets = [
    ...(lease === 'release' ? [] : ['devices.#dev = :lease']),
    ...(reserved && addBytes > 0 ? ['grants.#dev = if_not_exists(grants.#dev, :zero) - :bytes'] : []),
  ];
  const expression = [
    ...(sets.length ? [`SET ${sets.join(', ')}`] : []),
    ...(lease === 'release' ? ['REMOVE devices.#dev'] : []),
    ...(addBytes > 0 ? ['ADD used_bytes :bytes'] : []),
  ].join(' ');
  return Access.tx.update(
    { code: s.code },
    {
      expression,
      names: { '#dev': s.device },
      values: {
        ...(lease === 'release' ? {} : { ':lease': lease }),
        ...(addBytes > 0 ? { ':bytes': addBytes } : {}),
        ...(reserved && addBytes > 0 ? { ':zero': 0 } : {}),
      },
    },
    { expression: 'attribute_exists(pk)' },
  );
}

/**
 * The first report of a session (a Start, or an Interim/Stop whose Start was lost): the
 * session, marked `uncounted`, and the bytes it already used added to its code, all or nothing.
 * No shared counter is in it: a Start's transaction conflicts with nothing but its own
 * session's retransmissions. Cancelled on `session` when it exists already.
 */
// Access: TransactWriteItems [Put SESSION#<id> not exists, Update CODE#<code> ADD used_bytes + device lease].
export function openSessionItems(
  s: RadiusSession,
  lease: number,
  /** Items of the caller's own, none of them a counter (a test's). */
  extra: Record<string, TxItem> = {},
  reserved = false,
): Record<string, TxItem> {
  return {
    session: Session.tx.create({ ...s, uncounted: true }),
    code: deviceItem(s, s.status === 'open' ? lease : 'release', s.total_bytes, reserved),
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

/** `countSessionsItems` of one session (its own item is `session:<id>`). */
// Access: as countSessionsItems, for one session.
export const countSessionItems = (s: RadiusSession): Record<string, TxItem> => countSessionsItems([s]);

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
): Record<string, TxItem> {
  const closing = next.close !== undefined && read.status === 'open';
  const reopening = next.reopen === true && read.status === 'closed' && next.close === undefined;
  const added = Math.max(0, next.total_bytes - read.total_bytes);
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
    // Left uncounted by its first report: counted here (see `countSessionItems`).
    ...(read.uncounted ? { uncounted: undefined } : {}),
  };
  const open = reopening || (read.status === 'open' && !closing);
  return {
    session: Session.tx.update(
      read,
      {
        // `nas_id` as read: its open-by-NAS keys are written again, so a session opened before
        // that index moved (`movedFrom`) gets them at its next report and leaves the old GSI
        // (keys written again unchanged write no index copy).
        set: { ...set, nas_id: read.nas_id },
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
    code: deviceItem(read, open ? next.lease : 'release', added, reserved),
    // An uncounted session was never counted open: it is counted now as it will be.
    ...(read.uncounted ? countedItems(read, open) : {}),
    ...(!read.uncounted && closing ? countOpen(read, -1) : {}),
    ...(!read.uncounted && reopening ? countOpen(read, 1) : {}),
  };
}

/** The id, code and device of each open session of a NAS: what gsi4 holds, one Query. */
// Access: Query openByNas (gsi4) gsi4pk=NAS#<nas_id>#OPEN.
export const openDevicesOfNas = (nasId: string): Promise<Pick<RadiusSession, 'id' | 'code' | 'device'>[]> =>
  Session.queryIndexAll('openByNas', { nas_id: nasId }, { consistent: false });

/**
 * The stored sessions of ids read from an index, in their order, still open (one closed since
 * the index was read is left out): BatchGetItem, 100 keys a call.
 */
// Access: BatchGetItem pk=SESSION#<id> (strongly consistent), 100 a call.
export async function fullSessions(ids: readonly string[]): Promise<RadiusSession[]> {
  const out: RadiusSession[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    const read = await batchGet(
      ids.slice(i, i + 100).map((id) => [Session, { id }] as const),
      { consistent: true },
    );
    for (const s of read) if (s?.status === 'open') out.push(s);
  }
  return out;
}

// Access: Query openByNas (gsi4) gsi4pk=NAS#<nas_id>#OPEN, then BatchGetItem of those sessions.
export const openSessionsOfNas = async (nasId: string): Promise<RadiusSession[]> =>
  fullSessions((await openDevicesOfNas(nasId)).map((s) => s.id));

/**
 * Open sessions of a code: they can only be at its reseller's hotspots, so one query per NAS
 * of the reseller (a handful), filtered on the code (projected on gsi4), instead of an index
 * of its own; then the matching sessions by key.
 */
// Access: Query openByNas (gsi4) gsi4pk=NAS#<nas_id>#OPEN FILTER code = :code, once per NAS id given; BatchGetItem of the matches.
export async function openSessionsOfCode(code: string, nasIds: readonly string[]): Promise<RadiusSession[]> {
  const perNas = await Promise.all(
    nasIds.map((nasId) =>
      Session.queryIndexAll(
        'openByNas',
        { nas_id: nasId },
        { filter: { expression: 'code = :code', values: { ':code': code } } },
      ),
    ),
  );
  return fullSessions(perNas.flat().map((s) => s.id));
}

/** Every partition of the open sessions by last report: the shards, and the one of before. */
const OPEN_PARTITIONS: (number | 'unsharded')[] = [
  ...Array.from({ length: OPEN_SHARDS }, (_, n) => n),
  'unsharded',
];

/**
 * The last report of the open session that reported least recently (undefined: none open):
 * the oldest entry of each partition, OPEN_SHARDS + 1 Queries of one item. What the sweep's
 * age metric reads: it grows when the sweep falls behind.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> Limit 1, for each n < OPEN_SHARDS and the pre-shard gsi2pk=SESSIONS#OPEN.
export async function oldestOpenReport(): Promise<string | undefined> {
  const pages = await Promise.all(
    OPEN_PARTITIONS.map((shard) => Session.queryIndex('openByLastReport', { shard }, { limit: 1 })),
  );
  const oldest = pages
    .flatMap((p) => p.items.map((s) => s.last_report_at))
    .sort()
    .at(0);
  return oldest;
}

/**
 * Open sessions whose last report is older than `beforeIso`, oldest first, one page of at most
 * `limit`: the oldest `limit` of each shard (and of the pre-shard partition), merged. Bounded:
 * OPEN_SHARDS + 1 Queries in parallel, each of at most `limit` items.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> AND gsi2sk < :before, Limit, for each n < OPEN_SHARDS and the pre-shard gsi2pk=SESSIONS#OPEN.
export async function silentSessions(beforeIso: string, limit: number): Promise<RadiusSession[]> {
  const pages = await Promise.all(
    OPEN_PARTITIONS.map((shard) =>
      Session.queryIndex('openByLastReport', { shard }, { sk: { lt: beforeIso }, limit }),
    ),
  );
  return pages
    .flatMap((p) => p.items)
    .sort((a, b) => a.last_report_at.localeCompare(b.last_report_at) || a.id.localeCompare(b.id))
    .slice(0, limit);
}

/** One partition of the open sessions by last report: a shard, or the one of before the split. */
export type OpenPartition = number | 'unsharded';

/** Every partition the sweep reads. */
export const openPartitions = (): OpenPartition[] => [...OPEN_PARTITIONS];

/**
 * One page of a partition's open sessions whose last report is older than `beforeIso`, oldest
 * first, and where the next page starts: the sweep works the partitions side by side.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> (or SESSIONS#OPEN) AND gsi2sk < :before, Limit, ExclusiveStartKey.
export const silentSessionsOf = (
  shard: OpenPartition,
  beforeIso: string,
  limit: number,
  start?: Record<string, unknown>,
): Promise<{ items: RadiusSession[]; next?: Record<string, unknown> }> =>
  Session.queryIndex('openByLastReport', { shard }, { sk: { lt: beforeIso }, limit, start });

/**
 * How many open sessions last reported before `beforeIso` (the sweep's backlog when it ran out
 * of time): a COUNT Query per partition, read only then.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> AND gsi2sk < :before, Select COUNT, each partition.
export async function countSilentSessions(beforeIso: string): Promise<number> {
  const counts = await Promise.all(
    OPEN_PARTITIONS.map((shard) =>
      Session.countIndex('openByLastReport', { shard }, { sk: { lt: beforeIso } }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}
