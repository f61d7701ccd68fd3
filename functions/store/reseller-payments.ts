import { type Payment, PaymentEntity } from './payments.js';

/** Where a page of a reseller's payments starts: after this payment (newest first). */
export interface PaymentPosition {
  at: string;
  id: string;
}

/**
 * One page of a reseller's payments, newest first. The start key is built here from the
 * position and the reseller's own partition, never taken from the client.
 */
// Access: Query gsi2 gsi2pk=RESELLER#<id>#PAYMENTS, descending, Limit [ExclusiveStartKey gsi2sk=<at>#<id>].
export async function paymentsOfReseller(
  resellerId: string,
  from: PaymentPosition | undefined,
  limit: number,
): Promise<{ items: Payment[]; next?: PaymentPosition }> {
  const start = from
    ? {
        ...PaymentEntity.key({ id: from.id }),
        gsi2pk: PaymentEntity.indexes.gsi2.pk({ reseller_id: resellerId }),
        gsi2sk: PaymentEntity.indexes.gsi2.sk({ created_at: from.at, id: from.id }),
      }
    : undefined;
  const page = await PaymentEntity.queryIndex(
    'gsi2',
    { reseller_id: resellerId },
    { limit, forward: false, ...(start ? { start } : {}) },
  );
  const last = page.items[page.items.length - 1];
  return { items: page.items, ...(page.next && last ? { next: { at: last.created_at, id: last.id } } : {}) };
}
