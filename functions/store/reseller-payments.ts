// One page of a reseller's payments, newest first.

import type { Item } from './entity.js';
import { type Payment, PaymentEntity } from './payments.js';

/** One page of a reseller's payments, newest first, from `start` (a LastEvaluatedKey of this list). */
// Access: Query byReseller (gsi2) gsi2pk=RESELLER#<id>#PAYMENTS, descending, Limit [ExclusiveStartKey].
export async function paymentsOfReseller(
  resellerId: string,
  start: Item | undefined,
  limit: number,
): Promise<{ items: Payment[]; next?: Item }> {
  return PaymentEntity.queryIndex(
    'byReseller',
    { reseller_id: resellerId },
    { limit, forward: false, ...(start ? { start } : {}) },
  );
}
