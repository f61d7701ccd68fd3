// The RADIUS session's record, its keys and indexes (open by NAS, open by last report, ended by code).

import { entity } from './entity.js';
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
  /**
   * Its interims are counted on its code by the table's stream (functions/radius/code-usage.ts):
   * an interim writes this item alone (`interimInOneWrite`, sessions.ts). Set by the first report of
   * an open session, or by a report that finds it without; absent on sessions written before.
   */
  by_stream?: true;
}

/** Closed sessions are kept this long (support, disputes), then DynamoDB's TTL removes them. */
const KEEP_S = 90 * 24 * 3600;

/** How far back the console finds a code's ended sessions (`endedByCode`). */
export const ENDED_SEARCH_DAYS = 30;

/**
 * Shards of the open sessions' index by last report. The index takes about 40 % of all the
 * writes of the accounting route (a moving key: a delete and a put per interim), so to keep
 * each shard under 2 % of the writes it needs 20 shards written evenly; a hash over a few
 * hundred live sessions (a small network, the load test) is not even, so 64, about 3 times
 * that. At the modelled peak: 1,430 writes/s over 64, about 22/s a shard against the 1,000 a
 * partition takes; the sweep reads them with 64 small Queries a page.
 */
export const OPEN_SHARDS = 64;

/** A shard's partition of the open sessions by last report. */
const openPartition = (shard: number) => `SESSIONS#OPEN#${shard}`;

export const Session = entity<RadiusSession>('radius_session')({
  key: (s: Pick<RadiusSession, 'id'>) => ({ pk: `SESSION#${s.id}`, sk: 'SESSION' }),
  indexes: {
    /**
     * Open sessions of a NAS (Accounting-On/Off closes them, a revoked code's are cut, the
     * captive API finds a device's). On gsi4, which holds only `id`, `code` and `device`: none
     * changes on an interim, so an interim writes no copy there (on gsi1, projecting ALL, each
     * interim rewrote the session's copy, about 667 writes/s at the modelled peak). Readers
     * that need more read the sessions by key (`fullSessions`).
     */
    openByNas: {
      gsi: 'gsi4',
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
      pk: (s: Pick<RadiusSession, 'id'> | { shard: number }) =>
        openPartition('shard' in s ? s.shard : shardOf(s.id, OPEN_SHARDS)),
      sk: (s: RadiusSession) => `${s.last_report_at}#${s.id}`,
      when: (s: RadiusSession) => s.status === 'open',
    },
    /**
     * A code's ended sessions by end time: what the console's search finds (by code, or by
     * phone through the phone's codes), 30 days back (ENDED_SEARCH_DAYS, the query's lower
     * bound). Sparse: an open session has no key here, so an interim writes nothing to it; a
     * close writes it once (gsi1 projects everything: the search reads no session by key).
     */
    endedByCode: {
      gsi: 'gsi1',
      pk: 'CODE#{code}#ENDED',
      sk: '{closed_at}#{id}',
      sparse: { status: 'closed' },
    },
  },
  ttl: (s) => Math.floor(Date.parse(s.started_at) / 1000) + KEEP_S,
});

// Access: GetItem pk=SESSION#<id> (strongly consistent: the next write is conditioned on it).
export const getSession = (id: string): Promise<RadiusSession | undefined> =>
  Session.get({ id }, { consistent: true });
