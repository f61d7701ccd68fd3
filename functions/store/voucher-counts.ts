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

const VoucherCount = entity<VoucherCounts>()({
  name: 'voucher_count',
  key: (c: Pick<VoucherCounts, 'reseller_id'>) => ({ pk: `VOUCHERCOUNT#${c.reseller_id}`, sk: 'COUNTS' }),
});

/** A change of a reseller's counts, for the transaction that makes it. */
// Access: UpdateItem pk=VOUCHERCOUNT#<reseller_id>, sk=COUNTS: ADD active, redeemed (in a transaction).
export const voucherCountsMove = (resellerId: string, by: { active?: number; redeemed?: number }): TxItem =>
  VoucherCount.tx.update(
    { reseller_id: resellerId },
    {
      expression: 'ADD active :a, redeemed :r SET entity = :e, reseller_id = :id',
      values: { ':a': by.active ?? 0, ':r': by.redeemed ?? 0, ':e': VoucherCount.name, ':id': resellerId },
    },
  );

/** A reseller's counts (zeros when it never had a voucher). */
// Access: GetItem pk=VOUCHERCOUNT#<reseller_id>, sk=COUNTS.
export async function getVoucherCounts(resellerId: string): Promise<{ active: number; redeemed: number }> {
  const c = await VoucherCount.get({ reseller_id: resellerId });
  return { active: Math.max(0, c?.active ?? 0), redeemed: Math.max(0, c?.redeemed ?? 0) };
}
