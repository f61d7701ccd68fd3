// Live counts per scope (the platform, a reseller, a subscriber), sharded, kept in the transactions that change them.

import { batchGet, entity, type TxItem } from './entity.js';
import { shardOf } from './shards.js';

/**
 * Live counts per scope (the platform, a reseller, a subscriber), kept in transactions
 * conditioned on what they count (the same transactions, but for a session's Start, counted
 * after it by the table's stream consumer, functions/radius/session-counts.ts, or by the
 * session's next report: functions/store/sessions.ts, `countSessionsItems`), so that the
 * monitoring overview reads them in one BatchGetItem instead of counting items: open RADIUS
 * sessions and active alerts.
 *
 * Write-sharded (docs/scale.md, "Writes per key"): a transaction on an item that about 100
 * other transactions a second also write conflicts most of the time. So a scope that busy is
 * split into `shardsOf(scope)` items, `STATS#<scope>#<n>`, each change adding to the shard of
 * its own id (the session's, the alert's), and a read sums every shard. A count is exact: each
 * change is one ADD in a transaction conditioned on what it counts, so no change is lost or counted twice
 * (only the sum of the shards means anything). A scope of one shard (a subscriber) is one item,
 * `STATS#<scope>`.
 */
export interface ScopeCounter {
  scope: string;
  /** The shard (absent: a scope of one item). */
  shard?: number;
  /** Open RADIUS sessions. */
  open?: number;
  /** Alerts not acknowledged yet. */
  alerts_active?: number;
}

export const Counter = entity<ScopeCounter>('scope_counter')({
  key: (c: Pick<ScopeCounter, 'scope' | 'shard'>) => ({
    pk: c.shard === undefined ? `STATS#${c.scope}` : `STATS#${c.scope}#${c.shard}`,
    sk: 'COUNTERS',
  }),
});

export const scopeOf = {
  all: () => 'ALL',
  reseller: (resellerId: string) => `RESELLER#${resellerId}`,
  subscriber: (subscriberId: string) => `SUBSCRIBER#${subscriberId}`,
};

/**
 * How many items a scope's counts are split over. The platform: every session open and close
 * (about 100 transactions/s at the modelled peak) over 32, about 3/s each. A reseller: a large
 * one (400 hotspots, 4 % of the network) opens and closes about 4 sessions/s, over 8 about 0.5/s
 * each. A subscriber: a handful of sessions, one item.
 */
const COUNTER_SHARDS = { all: 32, reseller: 8, subscriber: 1 } as const;

export function shardsOf(scope: string): number {
  if (scope === scopeOf.all()) return COUNTER_SHARDS.all;
  if (scope.startsWith('RESELLER#')) return COUNTER_SHARDS.reseller;
  return COUNTER_SHARDS.subscriber;
}

/** The keys a scope's counts are read from: each shard, or its one item. */
const readKeys = (scope: string): Pick<ScopeCounter, 'scope' | 'shard'>[] => {
  const n = shardsOf(scope);
  return n > 1 ? Array.from({ length: n }, (_, shard) => ({ scope, shard })) : [{ scope }];
};

/** The counter item a change of `id` (the session's, the alert's) adds to in a scope: its shard. */
// Access: none (the key only).
export function counterKeyOf(scope: string, id: string): Pick<ScopeCounter, 'scope' | 'shard'> {
  const n = shardsOf(scope);
  return { scope, ...(n > 1 ? { shard: shardOf(id, n) } : {}) };
}

/** +by on one counter of one counter item, for a transaction. */
// Access: UpdateItem pk=STATS#<scope>[#<shard>], sk=COUNTERS: ADD <counter> by (in a transaction).
export const addToCounter = (
  counter: 'open' | 'alerts_active',
  key: Pick<ScopeCounter, 'scope' | 'shard'>,
  by: number,
): TxItem => Counter.tx.upsert(key, { add: { [counter]: by } });

/**
 * +n on one counter of several scopes, named `<counter>:<scope>` for a transaction. `id` (the
 * session's or the alert's) picks the shard of a sharded scope.
 */
export function countItems(
  counter: 'open' | 'alerts_active',
  scopes: string[],
  by: number,
  id: string,
): Record<string, TxItem> {
  return Object.fromEntries(
    scopes.map((scope) => [`${counter}:${scope}`, addToCounter(counter, counterKeyOf(scope, id), by)]),
  );
}

/** A scope's counters (zeros when nothing was ever counted there): the sum of its shards. */
// Access: BatchGetItem pk=STATS#<scope> and STATS#<scope>#<n> (n < shardsOf(scope)), sk=COUNTERS: at most 33 keys, one call.
export async function countersOf(scope: string): Promise<{ open: number; alerts_active: number }> {
  const items = await batchGet(readKeys(scope).map((k) => [Counter, k] as const));
  let open = 0;
  let alerts = 0;
  for (const c of items) {
    open += c?.open ?? 0;
    alerts += c?.alerts_active ?? 0;
  }
  return { open: Math.max(0, open), alerts_active: Math.max(0, alerts) };
}
