// The books of one reseller in one month, and the month's session count over shards.

import type { Currency } from '../core/currency.js';
import { addBooks, type BookEntry, type Books, entryAdds, noBooks } from './books.js';
import { entity, type TxItem } from './entity.js';
import { shardOf } from './shards.js';

/**
 * The books of one reseller in one month (UTC): its sales' counters (functions/store/books.ts),
 * added to by the ledger's entries in the transaction of each sale and refund, and the RADIUS
 * sessions started. The billing summary is one Query of at most 9 items, whatever the number of
 * sales and sessions. A reseller sells in one currency (its country's; the operator CLI refuses
 * to move it to the other zone), so its books never mix XOF and XAF. Payments without a NAS id
 * count under `UNATTRIBUTED` (XOF) or `unattributed-xaf`.
 */
export const UNATTRIBUTED = 'unattributed';

/** The reseller id unattributed revenue of a currency counts under: one aggregate per currency. */
export const unattributedFor = (currency: Currency): string =>
  currency === 'XOF' ? UNATTRIBUTED : `${UNATTRIBUTED}-${currency.toLowerCase()}`;

export interface MonthlyRevenue extends Books {
  reseller_id: string;
  month: string;
  /** RADIUS sessions started in the month at the reseller's hotspots. */
  sessions_count: number;
}

/**
 * Session starts are counted on SESSION_COUNT_SHARDS items of the month beside its books item
 * (`MONTH#<month>#S<n>`, n from the session id), in the same partition: every Start of a
 * reseller's hotspots is a transaction on one of them, about 2/s at the modelled peak for a
 * reseller of 400 hotspots, which on one item (with its sales) would conflict now and then;
 * over 8, rarely. The month reads as one Query of at most 9 items.
 */
export const SESSION_COUNT_SHARDS = 8;

type MonthKey = Pick<MonthlyRevenue, 'reseller_id' | 'month'> & { shard?: number };

/** As stored: the books' counters and breakdowns (books.ts), or a shard's `sessions_count`. */
const Revenue = entity<MonthKey & Record<string, unknown>>('revenue')({
  key: (r: MonthKey) => ({
    pk: `REVENUE#${r.reseller_id}`,
    sk: r.shard === undefined ? `MONTH#${r.month}` : `MONTH#${r.month}#S${r.shard}`,
  }),
});

/**
 * A sale's (or its refund's) entry in its month's books, for its transaction. Only the ledger
 * (functions/billing/ledger.ts) writes one.
 */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD total_fcfa, sales_count, provider_fee_fcfa, commission_fcfa, h:/f:/c:/a: (in a transaction).
export const monthEntry = (resellerId: string, month: string, entry: BookEntry): TxItem =>
  Revenue.tx.upsert(
    { reseller_id: resellerId, month },
    { set: { reseller_id: resellerId, month }, add: entryAdds(entry) },
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
  Revenue.tx.upsert(
    { reseller_id: resellerId, month, shard },
    { set: { reseller_id: resellerId, month }, add: { sessions_count: n } },
  );

/** A month: its books item and its session-count shards, summed (no activity reads as zeros). */
// Access: Query pk=REVENUE#<reseller_id> AND begins_with(sk, MONTH#<YYYY-MM>): at most 1 + SESSION_COUNT_SHARDS items.
export async function getMonthlyRevenue(resellerId: string, month: string): Promise<MonthlyRevenue> {
  const key = Revenue.key({ reseller_id: resellerId, month });
  const items = await Revenue.queryAll({ pk: key.pk, sk: { beginsWith: key.sk } });
  const books = items.reduce<Books>((b, item) => addBooks(b, item), noBooks());
  const sessions = items.reduce((n, item) => n + Number(item.sessions_count ?? 0), 0);
  return { reseller_id: resellerId, month, ...books, sessions_count: sessions };
}
