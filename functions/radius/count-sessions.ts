// New sessions counted open and in their reseller's month, several a transaction.

import { log } from '../core/log.js';
import { cancelled, transact } from '../store/entity.js';
import { untilSettled } from '../store/retry.js';
import {
  countedItemNamesOf,
  countGuardOf,
  countSessionsItems,
  type RadiusSession,
} from '../store/sessions.js';

/** DynamoDB's most items in one transaction. */
const MAX_TX_ITEMS = 100;

export interface CountOutcome {
  /** Counted by this call. */
  counted: string[];
  /** Counted or changed by another writer meanwhile (its condition failed): nothing to do. */
  skipped: string[];
  /** Neither, after every attempt (conflicts, throttles): the caller has them delivered again. */
  failed: string[];
}

/**
 * The sessions in groups whose transaction holds at most 100 items: each session's own item
 * and the counter items of the group (shared by most sessions of a batch: 32 platform shards,
 * 8 per reseller, 8 month shards per reseller and month, one per subscriber).
 */
function groupsOf(sessions: readonly RadiusSession[], max = MAX_TX_ITEMS): RadiusSession[][] {
  const groups: RadiusSession[][] = [];
  let group: RadiusSession[] = [];
  let names = new Set<string>();
  for (const s of sessions) {
    const own = countedItemNamesOf(s);
    const added = own.filter((n) => !names.has(n)).length;
    if (group.length > 0 && names.size + added > max) {
      groups.push(group);
      group = [];
      names = new Set();
    }
    group.push(s);
    for (const n of own) names.add(n);
  }
  if (group.length) groups.push(group);
  return groups;
}

/**
 * Counts sessions their first report left uncounted, several in one transaction
 * (`countSessionsItems`: each counter item ADDed once with the sum of its sessions), the
 * groups one after the other (side by side they would fight over the same counter items).
 * A cancelled transaction names the sessions whose condition failed (another writer counted or
 * changed them): those are dropped and the rest sent again; a conflict with another
 * transaction is retried after the one back-off (functions/store/retry.ts). Idempotent: a session is counted only while it
 * carries `uncounted`, which the counting removes in the same transaction.
 */
export async function countSessions(
  sessions: readonly RadiusSession[],
  attempts = 6,
): Promise<CountOutcome & { transactions: number }> {
  const out: CountOutcome & { transactions: number } = {
    counted: [],
    skipped: [],
    failed: [],
    transactions: 0,
  };
  for (const group of groupsOf(sessions)) {
    let pending = group;
    // What a cancelled transaction leaves is sent again (`untilSettled`'s back-off); `false`:
    // not worth another try (a throttle, an outage, a cancellation no session explains).
    await untilSettled(
      async () => {
        try {
          out.transactions += 1;
          await transact(countSessionsItems(pending));
          out.counted.push(...pending.map((s) => s.id));
          pending = [];
          return true;
        } catch (error) {
          const c = cancelled<string>(error);
          if (!c) {
            // A throttle or an outage: the whole group is delivered again.
            log.warn('session counts: a transaction failed', {
              error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown',
              sessions: pending.length,
            });
            return false;
          }
          const done = pending.filter((s) => c.failed(countGuardOf(s.id)));
          out.skipped.push(...done.map((s) => s.id));
          pending = pending.filter((s) => !c.failed(countGuardOf(s.id)));
          // Cancelled neither by a session's condition nor by a conflict: not worth repeating.
          if (done.length === 0 && !c.conflict) {
            log.warn('session counts: a transaction was cancelled', { reasons: c.message });
            return false;
          }
          return pending.length === 0 ? true : undefined;
        }
      },
      () => false,
      attempts,
    );
    out.failed.push(...pending.map((s) => s.id));
  }
  return out;
}
