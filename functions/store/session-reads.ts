// The reads of RADIUS sessions: open ones of a NAS or a code, silent ones by shard, ended ones of a code.

import { batchGet } from './entity.js';
import { ENDED_SEARCH_DAYS, OPEN_SHARDS, type RadiusSession, Session } from './session-entity.js';

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

/**
 * Open sessions of a code: they can only be at its reseller's hotspots, so one query per NAS
 * of the reseller (a handful), filtered on the code (projected on gsi4), instead of an index
 * of its own; then the matching sessions by key.
 */
// Access: Query openByNas (gsi4) gsi4pk=NAS#<nas_id>#OPEN FILTER code = :code, once per NAS id given; BatchGetItem of the matches.
export async function openSessionsOfCode(code: string, nasIds: readonly string[]): Promise<RadiusSession[]> {
  const perNas = await Promise.all(
    nasIds.map((nasId) =>
      Session.queryIndexAll('openByNas', { nas_id: nasId }, { filter: Session.where.is('code', code) }),
    ),
  );
  return fullSessions(perNas.flat().map((s) => s.id));
}

/** Every partition of the open sessions by last report: its shards. */
const OPEN_PARTITIONS: number[] = Array.from({ length: OPEN_SHARDS }, (_, n) => n);

/**
 * The index's sort key is the session's last report as of its last full write (its first
 * report, a Stop, a close, an interim that took the long way): an interim written alone
 * (`interimInOneWrite`, sessions.ts) moves no key, so the key is a lower bound of `last_report_at`
 * and every read of silent sessions filters on `last_report_at` itself.
 */
const silentFilter = (beforeIso: string) => Session.where.compare('last_report_at', '<', beforeIso);

/**
 * The last report of the open session that reported least recently among those silent since
 * `beforeIso` (undefined: none): per partition, the first silent one in key order (the key is
 * the lower bound above), read page by page. What the sweep's age metric reads after a run: it
 * stays at 0 while the sweep keeps up.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> AND gsi2sk < :before FILTER last_report_at < :before, pages until one, for each n < OPEN_SHARDS.
export async function oldestOpenReport(beforeIso: string): Promise<string | undefined> {
  const firsts = await Promise.all(
    OPEN_PARTITIONS.map(async (shard) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await silentSessionsOf(shard, beforeIso, 100, start);
        if (page.items.length) return page.items[0]?.last_report_at;
        start = page.next;
      } while (start);
      return undefined;
    }),
  );
  return firsts
    .filter((x): x is string => x !== undefined)
    .sort()
    .at(0);
}

/**
 * Open sessions whose last report is older than `beforeIso`, one page of at most `limit` per
 * partition, merged oldest first. Bounded: OPEN_SHARDS Queries in parallel, each of at most
 * `limit` items read (fewer answered: the filter).
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> AND gsi2sk < :before FILTER last_report_at < :before, Limit, for each n < OPEN_SHARDS.
export async function silentSessions(beforeIso: string, limit: number): Promise<RadiusSession[]> {
  const pages = await Promise.all(
    OPEN_PARTITIONS.map((shard) =>
      Session.queryIndex(
        'openByLastReport',
        { shard },
        { sk: { lt: beforeIso }, limit, filter: silentFilter(beforeIso) },
      ),
    ),
  );
  return pages
    .flatMap((p) => p.items)
    .sort((a, b) => a.last_report_at.localeCompare(b.last_report_at) || a.id.localeCompare(b.id))
    .slice(0, limit);
}

/** One partition of the open sessions by last report: a shard. */
export type OpenPartition = number;

/** Every partition the sweep reads. */
export const openPartitions = (): OpenPartition[] => [...OPEN_PARTITIONS];

/**
 * One page of a partition's open sessions whose last report is older than `beforeIso`, oldest
 * first, and where the next page starts: the sweep works the partitions side by side.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> AND gsi2sk < :before FILTER last_report_at < :before, Limit, ExclusiveStartKey.
export const silentSessionsOf = (
  shard: OpenPartition,
  beforeIso: string,
  limit: number,
  start?: Record<string, unknown>,
): Promise<{ items: RadiusSession[]; next?: Record<string, unknown> }> =>
  Session.queryIndex(
    'openByLastReport',
    { shard },
    { sk: { lt: beforeIso }, limit, start, filter: silentFilter(beforeIso) },
  );

/**
 * How many open sessions last reported before `beforeIso` (the sweep's backlog when it ran out
 * of time): a COUNT Query per partition, read only then.
 */
// Access: Query openByLastReport (gsi2) gsi2pk=SESSIONS#OPEN#<n> AND gsi2sk < :before FILTER last_report_at < :before, Select COUNT, each partition.
export async function countSilentSessions(beforeIso: string): Promise<number> {
  const counts = await Promise.all(
    OPEN_PARTITIONS.map((shard) =>
      Session.countIndex(
        'openByLastReport',
        { shard },
        { sk: { lt: beforeIso }, filter: silentFilter(beforeIso) },
      ),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * A code's sessions that ended in the last ENDED_SEARCH_DAYS days, newest first, at most
 * `limit`. Eventually consistent (an index): a session closed a moment ago may be missing.
 */
// Access: Query endedByCode (gsi1) gsi1pk=CODE#<code>#ENDED AND gsi1sk > <now - 30 days>, descending, Limit.
export async function endedSessionsOfCode(
  code: string,
  nowMs: number,
  limit: number,
): Promise<RadiusSession[]> {
  const since = new Date(nowMs - ENDED_SEARCH_DAYS * 86_400_000).toISOString();
  const page = await Session.queryIndex(
    'endedByCode',
    { code },
    { sk: { gt: since }, limit, forward: false },
  );
  return page.items;
}
