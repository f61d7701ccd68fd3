// How many vouchers a reseller has by status, over shards, kept in the transactions that change them.

import { entity, type TxItem } from './entity.js';

/**
 * How many vouchers a reseller has, by stored status, kept in the transactions that change them
 * (generation and its rollback, redemption through the API, first login at a hotspot): a voucher
 * list's `total` is one GetItem, not a count of the reseller's vouchers.
 */
export interface VoucherCounts {
  reseller_id: string;
  active?: number;
  /** Redeemed, including those whose access has ended since (they read `expired`). */
  redeemed?: number;
}

/**
 * One item per reseller (`COUNTS`), plus a few shards (`COUNTS#<n>`, n < COUNT_SHARDS) written
 * by the parallel transactions of a voucher generation: transactions writing one item at the
 * same time conflict, so each of a generation's lanes adds to its own shard. The counts are the
 * sum of the partition's items (one Query of at most COUNT_SHARDS + 1 items).
 */
export const COUNT_SHARDS = 8;

const VoucherCount = entity<VoucherCounts>('voucher_count')({
  key: (c: Pick<VoucherCounts, 'reseller_id'> & { shard?: number }) => ({
    pk: `VOUCHERCOUNT#${c.reseller_id}`,
    sk: c.shard === undefined ? 'COUNTS' : `COUNTS#${c.shard}`,
  }),
});

/** A change of a reseller's counts, for the transaction that makes it; `shard`: a generation lane's. */
// Access: UpdateItem pk=VOUCHERCOUNT#<reseller_id>, sk=COUNTS or COUNTS#<shard>: ADD active, redeemed (in a transaction).
export const voucherCountsMove = (
  resellerId: string,
  by: { active?: number; redeemed?: number },
  shard?: number,
): TxItem =>
  VoucherCount.tx.upsert(
    { reseller_id: resellerId, ...(shard === undefined ? {} : { shard: shard % COUNT_SHARDS }) },
    { set: { reseller_id: resellerId }, add: { active: by.active ?? 0, redeemed: by.redeemed ?? 0 } },
  );

/** A reseller's counts, its items summed (zeros when it never had a voucher). */
// Access: Query pk=VOUCHERCOUNT#<reseller_id> (COUNTS and its shards).
export async function getVoucherCounts(resellerId: string): Promise<{ active: number; redeemed: number }> {
  const items = await VoucherCount.queryAll({ pk: VoucherCount.key({ reseller_id: resellerId }).pk });
  const sum = (f: (c: VoucherCounts) => number | undefined) => items.reduce((n, c) => n + (f(c) ?? 0), 0);
  return {
    active: Math.max(
      0,
      sum((c) => c.active),
    ),
    redeemed: Math.max(
      0,
      sum((c) => c.redeemed),
    ),
  };
}
