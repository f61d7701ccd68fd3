import { entity, type TxItem } from './entity.js';

/**
 * Live counts per scope (the platform, a reseller, a subscriber), kept in the same
 * transactions that change what they count, so that the monitoring overview reads them in one
 * GetItem instead of counting items: open RADIUS sessions and active alerts.
 */
export interface ScopeCounter {
  scope: string;
  /** Open RADIUS sessions. */
  open?: number;
  /** Alerts not acknowledged yet. */
  alerts_active?: number;
}

export const Counter = entity<ScopeCounter>()({
  name: 'scope_counter',
  key: (c: Pick<ScopeCounter, 'scope'>) => ({ pk: `STATS#${c.scope}`, sk: 'COUNTERS' }),
});

export const scopeOf = {
  all: () => 'ALL',
  reseller: (resellerId: string) => `RESELLER#${resellerId}`,
  subscriber: (subscriberId: string) => `SUBSCRIBER#${subscriberId}`,
};

/** +n on one counter of several scopes, named `<counter>:<scope>` for a transaction. */
export function countItems(
  counter: 'open' | 'alerts_active',
  scopes: string[],
  by: number,
): Record<string, TxItem> {
  return Object.fromEntries(
    scopes.map((scope) => [
      `${counter}:${scope}`,
      Counter.tx.update(
        { scope },
        {
          expression: 'ADD #c :n SET entity = :e',
          names: { '#c': counter },
          values: { ':n': by, ':e': Counter.name },
        },
      ),
    ]),
  );
}

/** A scope's counters (zeros when nothing was ever counted there). */
// Access: GetItem pk=STATS#<scope>, sk=COUNTERS.
export async function countersOf(scope: string): Promise<{ open: number; alerts_active: number }> {
  const c = await Counter.get({ scope });
  return { open: Math.max(0, c?.open ?? 0), alerts_active: Math.max(0, c?.alerts_active ?? 0) };
}
