import { entity, type TxItem } from './entity.js';

/**
 * A reseller's sales of one day (UTC), by hotspot and by forfait, counted in the same
 * transactions as the month's revenue (functions/store/revenue.ts): a completed payment, a
 * redeemed voucher, a voucher's first use at a hotspot. One item per reseller and day, so no
 * item is shared by every sale of the platform, and the console's dashboard reads a month as
 * one Query of at most 31 items, never the payments themselves.
 *
 * The breakdowns are flat attributes (`h:<nas_id>`, `f:<forfait_id>`) rather than maps: an ADD
 * on a top-level attribute creates it, where one on a map entry needs the map to exist first.
 */
export interface DailySales {
  reseller_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  total_fcfa: number;
  sales_count: number;
  by_hotspot: Record<string, number>;
  by_forfait: Record<string, number>;
}

/** The hotspot a sale without one (a voucher redeemed through the API) counts under. */
export const NO_HOTSPOT = '-';

type Stored = Pick<DailySales, 'reseller_id' | 'day'> & Record<string, unknown>;

const Sales = entity<Stored>('daily_sales')({
  key: (s: Pick<DailySales, 'reseller_id' | 'day'>) => ({
    pk: `SALES#${s.reseller_id}`,
    sk: `DAY#${s.day}`,
  }),
});

// Kept 400 days (this month and last year's same month), then DynamoDB's TTL removes them.
const expiry = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 400 * 86400;

/** One sale added to its day, for the transaction that counts it in the month's revenue. */
// Access: UpdateItem pk=SALES#<reseller_id>, sk=DAY#<YYYY-MM-DD>: ADD total_fcfa, sales_count, h:<nas>, f:<forfait> (in a transaction).
export function salesIncrement(sale: {
  resellerId: string;
  /** Any ISO instant of the sale (its UTC day is taken). */
  at: string;
  nasId: string | undefined;
  forfaitId: string;
  amountFcfa: number;
}): TxItem {
  const day = sale.at.slice(0, 10);
  return Sales.tx.update(
    { reseller_id: sale.resellerId, day },
    {
      expression:
        'ADD total_fcfa :amount, sales_count :one, #h :amount, #f :amount SET entity = :entity, reseller_id = :r, #day = :d, #ttl = :ttl',
      names: {
        '#h': `h:${sale.nasId || NO_HOTSPOT}`,
        '#f': `f:${sale.forfaitId}`,
        '#day': 'day',
        '#ttl': 'ttl',
      },
      values: {
        ':amount': sale.amountFcfa,
        ':one': 1,
        ':entity': Sales.name,
        ':r': sale.resellerId,
        ':d': day,
        ':ttl': expiry(day),
      },
    },
  );
}

function parse(item: Record<string, unknown>): DailySales {
  const by = (prefix: string) =>
    Object.fromEntries(
      Object.entries(item)
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, v]) => [k.slice(prefix.length), Number(v)]),
    );
  return {
    reseller_id: String(item.reseller_id),
    day: String(item.day),
    total_fcfa: Number(item.total_fcfa ?? 0),
    sales_count: Number(item.sales_count ?? 0),
    by_hotspot: by('h:'),
    by_forfait: by('f:'),
  };
}

/** The days of `from`..`to` (inclusive) that had a sale, oldest first. */
// Access: Query pk=SALES#<reseller_id> AND sk BETWEEN DAY#<from> AND DAY#<to>.
export async function salesBetween(resellerId: string, from: string, to: string): Promise<DailySales[]> {
  const { pk } = Sales.key({ reseller_id: resellerId, day: from });
  const items = await Sales.queryAll({
    pk,
    sk: {
      between: [
        Sales.key({ reseller_id: resellerId, day: from }).sk,
        Sales.key({ reseller_id: resellerId, day: to }).sk,
      ],
    },
  });
  return items.map((i) => parse(i as Record<string, unknown>));
}
