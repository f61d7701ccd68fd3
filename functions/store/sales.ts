// A reseller's sales of one day, and its days between two dates.

import { addBooks, type BookEntry, type Books, entryAdds, noBooks } from './books.js';
import { entity, type TxItem } from './entity.js';

/**
 * A reseller's sales of one day (UTC): the books of functions/store/books.ts, counted in the
 * same transaction as its month's (functions/store/revenue.ts). One item per reseller and day,
 * so no item is shared by every sale of the platform, and the console's dashboard reads a month
 * as one Query of at most 31 items, never the payments themselves.
 */
export interface DailySales extends Books {
  reseller_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
}

type Stored = Pick<DailySales, 'reseller_id' | 'day'> & Record<string, unknown>;

const Sales = entity<Stored>('daily_sales')({
  key: (s: Pick<DailySales, 'reseller_id' | 'day'>) => ({
    pk: `SALES#${s.reseller_id}`,
    sk: `DAY#${s.day}`,
  }),
  // Kept 400 days (this month and last year's same month), then DynamoDB's TTL removes them.
  ttl: (s) => Math.floor(Date.parse(`${s.day}T00:00:00Z`) / 1000) + 400 * 86400,
});

/**
 * A sale's (or its refund's) entry in its day's books, for its transaction. Only the ledger
 * (functions/billing/ledger.ts) writes one.
 */
// Access: UpdateItem pk=SALES#<reseller_id>, sk=DAY#<YYYY-MM-DD>: ADD total_fcfa, sales_count, provider_fee_fcfa, commission_fcfa, h:/f:/c:/a: (in a transaction).
export const dayEntry = (resellerId: string, day: string, entry: BookEntry): TxItem =>
  Sales.tx.upsert(
    { reseller_id: resellerId, day },
    { set: { reseller_id: resellerId, day }, add: entryAdds(entry) },
  );

/** The days of `from`..`to` (inclusive) that had a sale, oldest first. */
// Access: Query pk=SALES#<reseller_id> AND sk BETWEEN DAY#<from> AND DAY#<to>.
export async function salesBetween(resellerId: string, from: string, to: string): Promise<DailySales[]> {
  const first = Sales.key({ reseller_id: resellerId, day: from });
  const items = await Sales.queryAll({
    pk: first.pk,
    sk: { between: [first.sk, Sales.key({ reseller_id: resellerId, day: to }).sk] },
  });
  return items.map((i) => ({ reseller_id: resellerId, day: String(i.day), ...addBooks(noBooks(), i) }));
}
