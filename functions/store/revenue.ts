import type { Currency } from '../core/currency.js';
import { entity, type TxItem } from './entity.js';
import { shardOf } from './shards.js';

/**
 * Revenue of one reseller in one month (UTC), kept up to date inside the transaction that
 * completes a payment or redeems a voucher: the billing summary is one Query of at most 9
 * items, whatever the number of payments and sessions. A reseller sells in one currency (its
 * country's; the operator CLI refuses to move it to the other zone), so its aggregate never
 * mixes XOF and XAF. Payments without a NAS id count under `UNATTRIBUTED` (XOF, as before
 * currencies) or `unattributed-xaf`.
 */
export const UNATTRIBUTED = 'unattributed';

/** The reseller id unattributed revenue of a currency counts under: one aggregate per currency. */
export const unattributedFor = (currency: Currency): string =>
  currency === 'XOF' ? UNATTRIBUTED : `${UNATTRIBUTED}-${currency.toLowerCase()}`;

export interface MonthlyRevenue {
  reseller_id: string;
  month: string;
  total_fcfa: number;
  sessions_count: number;
  /** Of `total_fcfa`, what the reseller's agents sold for cash (functions/store/agents.ts). */
  agents_sold_fcfa: number;
  /** The agents' commission on those sales (kept by the agents, out of the reseller's share). */
  agents_commission_fcfa: number;
}

/**
 * Session starts are counted on SESSION_COUNT_SHARDS items of the month beside its sales item
 * (`MONTH#<month>#S<n>`, n from the session id), in the same partition: every Start of a
 * reseller's hotspots is a transaction on one of them, about 2/s at the modelled peak for a
 * reseller of 400 hotspots, which on one item (with its sales) would conflict now and then;
 * over 8, rarely. The month reads as one Query of at most 9 items.
 */
export const SESSION_COUNT_SHARDS = 8;

/** As stored: a month counted only by RADIUS session starts has no `total_fcfa` yet. */
const Revenue = entity<
  Pick<MonthlyRevenue, 'reseller_id' | 'month'> &
    Partial<
      Pick<MonthlyRevenue, 'sessions_count' | 'total_fcfa' | 'agents_sold_fcfa' | 'agents_commission_fcfa'>
    >
>('revenue')({
  key: (r: Pick<MonthlyRevenue, 'reseller_id' | 'month'> & { shard?: number }) => ({
    pk: `REVENUE#${r.reseller_id}`,
    sk: r.shard === undefined ? `MONTH#${r.month}` : `MONTH#${r.month}#S${r.shard}`,
  }),
});

/**
 * An ADD to a month's counters, for a transaction. The SET writes what the item is, so that the
 * first ADD of a month creates a complete item.
 */
function add(
  r: Pick<MonthlyRevenue, 'reseller_id' | 'month'> & { shard?: number },
  adds: string,
  values: Record<string, number>,
): TxItem {
  return Revenue.tx.update(r, {
    expression: `ADD ${adds} SET entity = :entity, reseller_id = :r, #month = :m`,
    names: { '#month': 'month' },
    values: { ...values, ':entity': Revenue.name, ':r': r.reseller_id, ':m': r.month },
  });
}

/** The increment of a month's aggregate by a sale, for a transaction. */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD total_fcfa, sessions_count (in a transaction).
export const revenueIncrement = (resellerId: string, month: string, amountFcfa: number): TxItem =>
  add({ reseller_id: resellerId, month }, 'total_fcfa :amount', { ':amount': amountFcfa });

/**
 * An agent's cash sale: it counts in the month's total like any sale, and in the agents' share
 * (sold, commission) that the billing summary adds beside the spec's fields.
 */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD total_fcfa, agents_sold_fcfa, agents_commission_fcfa (in a transaction).
export const revenueIncrementByAgent = (
  resellerId: string,
  month: string,
  amountFcfa: number,
  commissionFcfa: number,
): TxItem =>
  add(
    { reseller_id: resellerId, month },
    'total_fcfa :amount, agents_sold_fcfa :amount, agents_commission_fcfa :commission',
    { ':amount': amountFcfa, ':commission': commissionFcfa },
  );

/** The session-count shard of the month a session counts in: a hash of its id. */
// Access: none (the shard only).
export const sessionCountShardOf = (sessionId: string): number => shardOf(sessionId, SESSION_COUNT_SHARDS);

/**
 * `n` more RADIUS sessions started in the month at the reseller's hotspots, on one session-count
 * shard (the stream consumer adds the sessions of a batch that fall on the same shard at once).
 */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>#S<shard> (shard < SESSION_COUNT_SHARDS): ADD sessions_count n (in a transaction).
export const revenueSessionsStarted = (resellerId: string, month: string, shard: number, n: number): TxItem =>
  add({ reseller_id: resellerId, month, shard }, 'sessions_count :n', { ':n': n });

/** One more RADIUS session started in the month at the reseller's hotspots (accounting Start). */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>#S<n> (n < SESSION_COUNT_SHARDS, from the session id): ADD sessions_count 1 (in a transaction).
export const revenueSessionStarted = (resellerId: string, month: string, sessionId: string): TxItem =>
  revenueSessionsStarted(resellerId, month, sessionCountShardOf(sessionId), 1);

/**
 * A month: its sales item and its session-count shards summed (a month with no activity reads
 * as zeros; `sessions_count` on the sales item is what was counted there before the shards).
 */
// Access: Query pk=REVENUE#<reseller_id> AND begins_with(sk, MONTH#<YYYY-MM>): at most 1 + SESSION_COUNT_SHARDS items.
export async function getMonthlyRevenue(resellerId: string, month: string): Promise<MonthlyRevenue> {
  const key = Revenue.key({ reseller_id: resellerId, month });
  const items = await Revenue.queryAll({ pk: key.pk, sk: { beginsWith: key.sk } });
  const sum = (f: (r: (typeof items)[number]) => number | undefined) =>
    items.reduce((n, r) => n + (f(r) ?? 0), 0);
  return {
    reseller_id: resellerId,
    month,
    total_fcfa: sum((r) => r.total_fcfa),
    sessions_count: sum((r) => r.sessions_count),
    agents_sold_fcfa: sum((r) => r.agents_sold_fcfa),
    agents_commission_fcfa: sum((r) => r.agents_commission_fcfa),
  };
}
