// Sessions closed in bulk: a NAS's on Accounting-On/Off, and silent ones by the sweep, within a time budget.

import { fanOut } from '../core/fan-out.js';
import { log } from '../core/log.js';
import { getNas } from '../store/nas.js';
import { finishNasClose, type NasClose, pendingNasCloses, recordNasClose } from '../store/nas-closes.js';
import { untilSettled } from '../store/retry.js';
import {
  countSilentSessions,
  fullSessions,
  getSession,
  type OpenPartition,
  openDevicesOfNas,
  openPartitions,
  type RadiusSession,
  reportItems,
  silentSessionsOf,
} from '../store/sessions.js';
import { transactIfCurrent } from '../store/transact.js';
import { radiusSettings } from './settings.js';

/**
 * Closing sessions in bulk: a NAS's on its restart (Accounting-On/Off), and the silent ones (the
 * sweep). Both fan out: RADIUS_CLOSE_CONCURRENCY closes in flight, none started past a time
 * budget. A close is a transaction conditioned on the session as read (`reportItems`): a Stop
 * or an Interim that lands first wins, and the close reads again; the usage and the counters
 * move in the winning transaction only, so a session is counted once whoever closes it.
 */

/** Sessions read by key per task (one BatchGetItem), then closed one after the other. */
const NAS_CHUNK = 10;
/** Restarts the sweep finishes per run at most (each is one Query and its sessions). */
const NAS_CLOSES_PER_SWEEP = 100;

/** `released`: the NAS id's VLAN or site was released (functions/network/vlans.ts). */
type CloseReason = 'nas_restart' | 'stale' | 'released';

/**
 * Closes one session as of its last report. `first`: the session as read (from an index
 * copy or by key); when a report or another transaction got there first, it is read again by
 * key and closed if it still is `eligible`. True when this close closed it.
 */
async function closeAsReported(
  first: RadiusSession,
  reason: CloseReason,
  nowIso: string,
  eligible: (s: RadiusSession) => boolean,
): Promise<boolean> {
  let read: RadiusSession | undefined = first;
  return untilSettled(async () => {
    const s = read ?? (await getSession(first.id));
    read = undefined;
    if (s?.status !== 'open' || !eligible(s)) return false;
    const items = reportItems(s, {
      total_bytes: s.total_bytes,
      session_time_s: s.session_time_s,
      nowIso,
      lease: 0,
      close: reason,
    });
    // Stale: it reported, closed or its code was in another transaction: read it again.
    return (await transactIfCurrent(items, 'session')) ? true : undefined;
  }, 'closing: the session kept changing');
}

/** The ids in tasks of NAS_CHUNK. */
const chunks = (ids: readonly string[]): string[][] =>
  Array.from({ length: Math.ceil(ids.length / NAS_CHUNK) }, (_, i) =>
    ids.slice(i * NAS_CHUNK, (i + 1) * NAS_CHUNK),
  );

/**
 * Closes the open sessions of a restarted NAS among `ids` that have not reported since
 * `before` and are `close.reseller_id`'s (a NAS id reused after a release has sessions of its
 * earlier holder: they are not the restarted router's; a restart recorded without a reseller
 * closes every one): one BatchGetItem, then one close after the other, none started at or
 * after `until`. Answers how many it closed and the ids it had no time for.
 */
async function closeNasChunk(
  ids: readonly string[],
  close: Pick<NasClose, 'before' | 'reseller_id' | 'reason'>,
  nowIso: string,
  until: number,
): Promise<{ closed: number; left: string[] }> {
  let closed = 0;
  const alive = (s: RadiusSession) =>
    s.last_report_at <= close.before &&
    (close.reseller_id === undefined || s.reseller_id === close.reseller_id);
  const read = (await fullSessions(ids)).filter(alive);
  for (const [i, s] of read.entries()) {
    if (Date.now() >= until) return { closed, left: read.slice(i).map((x) => x.id) };
    if (await closeAsReported(s, close.reason ?? 'nas_restart', nowIso, alive)) closed++;
  }
  return { closed, left: [] };
}

export interface NasCloseResult {
  /** Closed inside this answer. */
  closed: number;
  /** Left to the sweep (a restart recorded for it): the answer's budget ran out. */
  deferred: number;
}

/**
 * Accounting-On/Off: every open session of the NAS's current holder closes (`resellerId`, the
 * router's reseller, which caller.ts checked holds the NAS; read from the NAS when not given,
 * and nothing closes for a NAS id nobody holds). Inside the RADIUS answer, for
 * RADIUS_NAS_CLOSE_BUDGET_MS at most (FreeRADIUS waits 2 s): a NAS's sessions are closed side
 * by side, RADIUS_CLOSE_CONCURRENCY at a time; what the budget leaves is recorded as a restart
 * the next sweep finishes (store/nas-closes.ts), the way local mode runs it too. A session that
 * reports after the restart (`nowMs`) is alive and stays open. A release closes a NAS id's
 * sessions the same way, with reason `released`.
 */
export async function closeSessionsOfNas(
  nasId: string,
  nowMs: number,
  holder: { resellerId?: string | undefined; reason?: 'nas_restart' | 'released' } = {},
): Promise<NasCloseResult> {
  const resellerId = holder.resellerId ?? (await getNas(nasId))?.reseller_id;
  if (resellerId === undefined) return { closed: 0, deferred: 0 };
  const s = radiusSettings();
  const until = Date.now() + s.RADIUS_NAS_CLOSE_BUDGET_MS;
  const nowIso = new Date(nowMs).toISOString();
  const close = { before: nowIso, reseller_id: resellerId, reason: holder.reason ?? 'nas_restart' } as const;
  const ids = (await openDevicesOfNas(nasId)).map((d) => d.id);
  let closed = 0;
  const { left } = await fanOut(
    chunks(ids),
    { concurrency: s.RADIUS_CLOSE_CONCURRENCY, until },
    async (chunk) => {
      // Awaited before the sum: `closed += await` would add to the value read before the wait.
      const done = await closeNasChunk(chunk, close, nowIso, until);
      closed += done.closed;
      // Out of time mid-chunk: the rest is left (the fan-out starts nothing more).
      return done.left.length ? [done.left] : undefined;
    },
  );
  const deferred = left.reduce((n, c) => n + c.length, 0);
  if (deferred > 0) await recordNasClose({ nas_id: nasId, ...close });
  log.info('nas sessions closed', { nasId, closed, deferred });
  return { closed, deferred };
}

export interface SweepResult extends Record<string, number> {
  /** Silent sessions closed (no report for a lease). */
  closed: number;
  /** Sessions of restarted NASes closed (what their Accounting-On left). */
  restart_closed: number;
  /** Restarts finished this run. */
  restarts_finished: number;
  /** Restarts still to finish (the budget ran out, or a close failed): the next run goes on. */
  restarts_left: number;
  /** Silent sessions left when the budget ran out (0: the run finished its backlog). */
  left: number;
  /** Closes that failed (a transaction error): retried next run. */
  errors: number;
  /** Silent sessions left open: their country's link is cut (functions/radius/link-watch.ts). */
  paused: number;
}

type SweepTask =
  | { kind: 'restart'; restart: NasClose; ids: string[] }
  | { kind: 'silent'; shard: OpenPartition; start?: Record<string, unknown> };

/**
 * The sweep (scheduled): finishes the restarts Accounting-On left, then closes open sessions
 * with no report for a lease (two interim intervals and a minute). Fanned out over the open
 * sessions' shards: each task reads one page of one shard (oldest first) and closes it, and
 * its next page joins the end of the queue, RADIUS_CLOSE_CONCURRENCY in flight; no task starts
 * past RADIUS_SWEEP_BUDGET_MS, and what is left is counted (the backlog).
 */
export async function sweepSilentSessions(
  nowMs: number,
  pageSize = 25,
  /** Silent sessions this run leaves open (a cut country's: they report late). */
  keepOpen: (s: RadiusSession) => Promise<boolean> = async () => false,
): Promise<SweepResult> {
  const s = radiusSettings();
  const until = Date.now() + s.RADIUS_SWEEP_BUDGET_MS;
  const cutoff = new Date(nowMs - s.RADIUS_LEASE_S * 1000).toISOString();
  const nowIso = new Date(nowMs).toISOString();
  const result: SweepResult = {
    closed: 0,
    restart_closed: 0,
    restarts_finished: 0,
    restarts_left: 0,
    left: 0,
    errors: 0,
    paused: 0,
  };
  const restarts = await pendingNasCloses(NAS_CLOSES_PER_SWEEP);
  const failed = new Set<string>();
  const restartTasks = (
    await Promise.all(
      restarts.map(async (restart) =>
        chunks((await openDevicesOfNas(restart.nas_id)).map((d) => d.id)).map(
          (ids): SweepTask => ({ kind: 'restart', restart, ids }),
        ),
      ),
    )
  ).flat();
  const silentTasks = openPartitions().map((shard): SweepTask => ({ kind: 'silent', shard }));
  const silent = (x: RadiusSession) => x.last_report_at < cutoff;

  const { left } = await fanOut(
    [...restartTasks, ...silentTasks],
    { concurrency: s.RADIUS_CLOSE_CONCURRENCY, until },
    async (task): Promise<SweepTask[]> => {
      if (task.kind === 'restart') {
        try {
          const done = await closeNasChunk(task.ids, task.restart, nowIso, until);
          result.restart_closed += done.closed;
          if (done.left.length) return [{ ...task, ids: done.left }];
        } catch (error) {
          failed.add(task.restart.nas_id);
          result.errors += 1;
          log.warn('sweep: a restart close failed', {
            nasId: task.restart.nas_id,
            error: (error as Error).name,
          });
        }
        return [];
      }
      const page = await silentSessionsOf(task.shard, cutoff, pageSize, task.start);
      for (const x of page.items) {
        // Out of time mid-page: the shard is left for the next run (counted below).
        if (Date.now() >= until) return [task];
        try {
          if (await keepOpen(x)) {
            result.paused += 1;
            continue;
          }
          if (await closeAsReported(x, 'stale', nowIso, silent)) result.closed += 1;
        } catch (error) {
          result.errors += 1;
          log.warn('sweep: a close failed', { session: x.id, error: (error as Error).name });
        }
      }
      return page.next ? [{ kind: 'silent', shard: task.shard, start: page.next }] : [];
    },
  );

  const unfinished = new Set([
    ...failed,
    ...left.flatMap((t) => (t.kind === 'restart' ? [t.restart.nas_id] : [])),
  ]);
  for (const restart of restarts) {
    if (unfinished.has(restart.nas_id)) continue;
    if (await finishNasClose(restart)) result.restarts_finished += 1;
  }
  result.restarts_left = restarts.length - result.restarts_finished;
  // Out of time with silent sessions unread: how many, for the metric and the next run.
  if (left.some((t) => t.kind === 'silent')) result.left = await countSilentSessions(cutoff);
  return result;
}
