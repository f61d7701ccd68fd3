// The CodeUsage stream consumer: Count RADIUS interims on their codes (used bytes, device lease, data limit) from the table's stream: an interim writes its session alone

import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { clock } from '../core/clock.js';
import { fanOut } from '../core/fan-out.js';
import { endInvocation, log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { Access, type AccessCode } from '../store/access-codes.js';
import { allOf, batchGet } from '../store/entity.js';
import { untilSettled } from '../store/retry.js';
import { countedEntryOf, countedOf, type RadiusSession, Session } from '../store/sessions.js';
import { readStreamBatch } from '../store/stream-batch.js';
import { disconnectOthersWhenUsedUp } from './disconnect.js';
import { radiusSettings } from './settings.js';

/**
 * The table's stream consumer that counts interims on their codes (functions/streams.ts). An
 * Interim-Update writes its session alone (functions/store/sessions.ts); this brings the code in
 * line: the bytes the session used since what the code counted of it (`counted:<session>`, an
 * absolute total) added to `used_bytes` and taken off the device's data reservation, the device's
 * lease extended to the session's last report plus RADIUS_LEASE_S, and, when the code's data is
 * used up, its other sessions disconnected (as a report's own write does).
 *
 * Idempotent: each write is conditioned on the entry as read and sets it to the session's total,
 * so a record delivered twice, an older image after a newer one, or a session a report's own
 * transaction counted meanwhile (a Stop, a wrap: functions/radius/accounting.ts) adds nothing.
 * A session without an entry is not the stream's to count (its Stop counted it and removed the
 * entry, or it was written before this consumer). Records come at least once and a session may
 * have several in a batch: its last image is the one counted. What could not be written is
 * answered as batch item failures: Lambda delivers the batch again from the first of them.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  try {
    return await readStreamBatch(
      event,
      {
        entity: Session,
        events: ['MODIFY'],
        takes: (item) => item.by_stream === true,
        idOf: (s) => s.id,
      },
      async (sessions) => {
        const outcome = await countUsage(sessions, clock.now());
        if (outcome.written) countMetric('InterimsCounted', outcome.written);
        log.info('code usage', {
          records: event.Records.length,
          sessions: sessions.length,
          ...outcome,
          failed: outcome.failed.length,
        });
        return outcome;
      },
    );
  } finally {
    await endInvocation();
  }
}

/** What the code must take from a session's image: bytes to add and the lease to extend to (none: nothing to write). */
function owed(code: AccessCode, s: RadiusSession, nowS: number) {
  const counted = countedEntryOf(code, s.id);
  if (counted === undefined) return undefined;
  const bytes = Math.max(0, s.total_bytes - counted);
  const lease = Math.floor(Date.parse(s.last_report_at) / 1000) + radiusSettings().RADIUS_LEASE_S;
  // Only a lease the device still holds is extended: a closed session's device was released.
  const held = code.devices[s.device];
  const extend = s.status === 'open' && held !== undefined && held < lease && lease > nowS;
  if (bytes === 0 && !extend) return undefined;
  return { counted, bytes, lease: extend ? lease : undefined, total: counted + bytes };
}

/**
 * Counts each session's last image on its code: its code read (one BatchGetItem for the batch,
 * strongly consistent), then one conditional UpdateItem per session that owes it something,
 * IN_FLIGHT codes at a time; a refused write reads the code again, up to `attempts` times.
 */
// Access: BatchGetItem CODE#<code> (consistent); UpdateItem CODE#<code> SET counted:<id>, devices.<dev>, grants.<dev> ADD used_bytes (condition counted:<id> as read), ReturnValues ALL_NEW.
export async function countUsage(
  sessions: readonly RadiusSession[],
  nowMs: number,
  attempts = 4,
): Promise<{ written: number; unchanged: number; failed: string[] }> {
  const out = { written: 0, unchanged: 0, failed: [] as string[] };
  const codes = new Map<string, AccessCode | undefined>();
  const read = async (names: readonly string[]) => {
    for (let i = 0; i < names.length; i += 100) {
      const chunk = names.slice(i, i + 100);
      const got = await batchGet(
        chunk.map((code) => [Access, { code }] as const),
        { consistent: true },
      );
      for (const [j, name] of chunk.entries()) codes.set(name, got[j]);
    }
  };
  await read([...new Set(sessions.map((s) => s.code))]);
  const nowS = Math.floor(nowMs / 1000);
  const one = async (s: RadiusSession) => {
    try {
      const settled = await untilSettled(
        async (attempt) => {
          if (attempt > 0) await read([s.code]);
          const code = codes.get(s.code);
          const due = code && owed(code, s, nowS);
          if (!code || !due) return 'unchanged' as const;
          const after = await writeUsage(code, s, due);
          if (!after) return undefined;
          codes.set(s.code, after);
          if (due.bytes > 0)
            await disconnectOthersWhenUsedUp(
              { ...after, used_bytes: after.used_bytes - due.bytes },
              due.bytes,
              s.id,
              nowMs,
            );
          return 'written' as const;
        },
        () => 'failed' as const,
        attempts,
      );
      if (settled === 'failed') out.failed.push(s.id);
      else out[settled] += 1;
    } catch (error) {
      log.warn('code usage: a write failed', { error: (error as Error).name });
      out.failed.push(s.id);
    }
  };
  // The codes side by side (a DynamoDB call costs less CPU with others in flight), each code's
  // sessions one after the other (they write the same item).
  const byCode = new Map<string, RadiusSession[]>();
  for (const s of sessions) byCode.set(s.code, [...(byCode.get(s.code) ?? []), s]);
  await fanOut(
    [...byCode.values()],
    { concurrency: IN_FLIGHT, until: Number.POSITIVE_INFINITY },
    async (group) => {
      for (const s of group) await one(s);
      return undefined;
    },
  );
  return out;
}

/** Codes written at once by a batch. */
const IN_FLIGHT = 8;

/** Steps of a code's data at which the edges' replica learns its used bytes (tenths). */
const REPLICA_STEPS = 10;

/**
 * The replica's copy of the used bytes after `used` (undefined: no new step). An edge decides a
 * cut's logins on it: it lags the code by less than a tenth of its data, and a code used up is
 * copied at once; a code without a data limit has none.
 */
function replicaBytesAt(code: AccessCode, used: number): number | undefined {
  const limit = code.offer.data_limit_mb * 1024 * 1024;
  if (!(limit > 0)) return undefined;
  const step = (b: number) => Math.min(REPLICA_STEPS, Math.floor((b * REPLICA_STEPS) / limit));
  return step(used) > step(code.replica_bytes ?? 0) ? used : undefined;
}

/** The code's write for one session (undefined: the entry or the device changed since the read). */
const writeUsage = (
  code: AccessCode,
  s: RadiusSession,
  due: { counted: number; bytes: number; lease: number | undefined; total: number },
): Promise<AccessCode | undefined> => {
  const reserved = code.grants !== undefined && due.bytes > 0;
  const w = Access.where;
  const copied = due.bytes > 0 ? replicaBytesAt(code, code.used_bytes + due.bytes) : undefined;
  return Access.updateReturning(
    { code: code.code },
    {
      set: {
        [countedOf(s.id)]: due.total,
        ...(copied !== undefined ? { replica_bytes: copied, replica_at: clock.iso() } : {}),
      },
      ...(copied !== undefined ? { read: code } : {}),
      entries: {
        ...(due.lease !== undefined ? { devices: { [s.device]: due.lease } } : {}),
        ...(reserved ? { grants: { [s.device]: { add: -due.bytes } } } : {}),
      },
      ...(due.bytes > 0 ? { add: { used_bytes: due.bytes } } : {}),
    },
    allOf(
      w.compare(countedOf(s.id), '=', due.counted),
      ...(due.lease !== undefined ? [w.has(['devices', s.device])] : []),
    ),
  );
};
