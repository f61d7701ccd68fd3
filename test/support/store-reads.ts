import { getAccessCode } from '../../functions/store/access-codes.js';
import { type Entitlement, EntitlementEntity } from '../../functions/store/entitlements.js';
import { type Voucher, voucherOf } from '../../functions/store/vouchers.js';

/**
 * Reads the tests make to see what a flow wrote, where no production path reads that way: through
 * the store's entities, as production reads.
 */

/** A subscriber's entitlements. */
// Access: Query pk=SUB#<subscriber_id> AND begins_with(sk, 'ENT#').
export async function listEntitlements(subscriberId: string): Promise<Entitlement[]> {
  // The key of an empty id is the partition and the sort-key prefix of all of them.
  const all = EntitlementEntity.key({ subscriber_id: subscriberId, id: '' });
  return EntitlementEntity.queryAll({ pk: all.pk, sk: { beginsWith: all.sk } });
}

/** A voucher by its code (undefined for a code that is no voucher: a paid code, an agent's). */
export async function getVoucher(code: string): Promise<Voucher | undefined> {
  const a = await getAccessCode(code);
  return a?.source === 'voucher' ? voucherOf(a) : undefined;
}
