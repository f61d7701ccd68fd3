// The transactions that settle a payment (complete, fail, expire, refund) and the record of each delivery seen.

import type { AccessCode } from './access-codes.js';
import { Access } from './access-codes.js';
import { type Entitlement, EntitlementEntity } from './entitlements.js';
import {
  allOf,
  batchGet,
  cancelled,
  type Expr,
  entity,
  exists,
  statusIs,
  type TxItem,
  transact,
} from './entity.js';
import { epochS, type Payment, PaymentEntity } from './payments.js';

/**
 * The transactions that settle a payment (complete, fail, expire, refund) and the record of the
 * deliveries applied to it: each is all or nothing, under the condition that counts it once.
 */

/** Webhook events are remembered this long (the aggregator's redelivery window, and then some). */
export const EVENT_KEEP_S = 35 * 24 * 3600;
/**
 * A delivery already applied to a payment (a spec webhook's event id, a provider notification's
 * id): the same one again for the same payment changes nothing. Keyed by payment AND event, in
 * the payment's partition: an event id another payment already used is another delivery.
 */
export interface SeenEvent {
  event_id: string;
  payment_id: string;
  status: 'completed' | 'failed' | 'refunded';
  received_at: string;
}

const WebhookEvent = entity<SeenEvent>('payment_event')({
  key: (e: Pick<SeenEvent, 'event_id' | 'payment_id'>) => ({
    pk: `PAYMENT#${e.payment_id}`,
    sk: `EVENT#${e.event_id}`,
  }),
  ttl: (e) => epochS(e.received_at) + EVENT_KEEP_S,
});

/** A payment and whether one delivery was already applied to it, in one round trip. */
// Access: BatchGetItem [PAYMENT#<id>/PAYMENT, PAYMENT#<id>/EVENT#<event_id>] (ConsistentRead).
export async function getPaymentAndEvent(
  id: string,
  eventId: string,
): Promise<{ payment?: Payment; seen: boolean }> {
  const [payment, event] = await batchGet(
    [
      [PaymentEntity, { id }],
      [WebhookEvent, { payment_id: id, event_id: eventId }],
    ],
    { consistent: true },
  );
  return { ...(payment ? { payment } : {}), seen: event !== undefined };
}

/**
 * `replayed`: this very delivery was applied to the payment already; `unchanged`: the payment
 * is no longer pending (another delivery, a status check or reconciliation settled it).
 */
export type SettleOutcome = 'applied' | 'unchanged' | 'replayed' | 'conflict';

function settleOutcome(error: unknown): SettleOutcome {
  const c = cancelled<'event' | 'payment'>(error);
  if (!c) throw error;
  // The delivery was seen already, or the payment is no longer pending: at-least-once delivery.
  if (c.failed('event')) return 'replayed';
  if (c.failed('payment')) return 'unchanged';
  if (c.conflict) return 'conflict';
  throw error;
}

const stillPending = statusIs('pending');

/**
 * The update of an unsettled payment to its outcome. Failing or expiring applies to a pending
 * payment only and moves it to the closed list; completing applies to any payment not completed
 * yet (a late completion after `failed` or `expired` is credited: the buyer paid) and takes it
 * off both lists. The condition is what counts a payment once, whatever races it.
 */
const notCompleted: Expr = /* @__PURE__ */ allOf(exists, PaymentEntity.where.isNot('status', 'completed'));
const settle = (payment: Payment, set: Partial<Payment>) =>
  PaymentEntity.tx.update(
    { id: payment.id },
    { set, read: payment },
    set.status === 'completed' ? notCompleted : stillPending,
  );

/** The record of a delivery in a settling transaction, when the settlement came from one. */
const seen = (
  paymentId: string,
  eventId: string | undefined,
  status: SeenEvent['status'],
  nowIso: string,
): Record<string, TxItem> =>
  eventId
    ? {
        event: WebhookEvent.tx.create({
          event_id: eventId,
          payment_id: paymentId,
          status,
          received_at: nowIso,
        }),
      }
    : {};

/**
 * Completes a payment: the delivery's record (when it came from one), -> completed, the
 * entitlement, the access code and the sale's bookings (functions/billing/ledger.ts), all or
 * nothing. A seen delivery or a payment completed already cancels it.
 */
// Access: TransactWriteItems [Put PAYMENT#<id>/EVENT#<event_id> attribute_not_exists(pk), Update PAYMENT#<id> status <> completed (leaves both lists), Put SUB#<sub>/ENT#<id> attribute_not_exists(pk), Put CODE#<code> (a top-up: Update CODE#<code> devices_version = as read), the ledger's bookings].
export async function completePayment(input: {
  payment: Payment;
  eventId?: string;
  providerReference?: string;
  entitlement: Entitlement;
  /** The access code the purchase creates (its clock starts now), or the code a top-up grows. */
  access: AccessCode;
  /** A top-up's write of `access` (`accessCodeExtend`), instead of creating it. */
  codeItem?: TxItem;
  /** The sale's entries in its month's and day's books. */
  bookings: Record<string, TxItem>;
  nowIso: string;
}): Promise<SettleOutcome | 'code_taken'> {
  const { payment } = input;
  try {
    await transact({
      ...seen(payment.id, input.eventId, 'completed', input.nowIso),
      payment: settle(payment, {
        status: 'completed',
        completed_at: input.nowIso,
        provider_reference: input.providerReference ?? payment.provider_reference,
        access_code: input.access.code,
      }),
      entitlement: EntitlementEntity.tx.create(input.entitlement),
      code: input.codeItem ?? Access.tx.create(input.access),
      ...input.bookings,
    });
    return 'applied';
  } catch (error) {
    // The random code exists already (about 1 in 8e14): the caller draws another; or the code a
    // top-up grows changed since it was read: the caller reads it again.
    if (cancelled(error)?.failed('code')) return 'code_taken';
    return settleOutcome(error);
  }
}

/**
 * Completes a PPPoE renewal's payment: the delivery's record, -> completed, and the period sold
 * (the ledger's `periodSold` items: the period's record, the subscriber moved on, the bookings),
 * all or nothing. `raced`: the subscriber's period was sold meanwhile (read it again).
 */
// Access: TransactWriteItems [Put PAYMENT#<id>/EVENT#<event_id> attribute_not_exists(pk), Update PAYMENT#<id> status <> completed, the period's items (functions/store/pppoe.ts), the ledger's bookings].
export async function completeRenewalPayment(input: {
  payment: Payment;
  eventId?: string;
  providerReference?: string;
  period: Record<string, TxItem>;
  nowIso: string;
}): Promise<SettleOutcome | 'raced'> {
  const { payment } = input;
  try {
    await transact({
      ...seen(payment.id, input.eventId, 'completed', input.nowIso),
      payment: settle(payment, {
        status: 'completed',
        completed_at: input.nowIso,
        provider_reference: input.providerReference ?? payment.provider_reference,
      }),
      ...input.period,
    });
    return 'applied';
  } catch (error) {
    const c = cancelled(error);
    if (c && (c.failed('renewal') || c.failed('subscriber'))) return 'raced';
    return settleOutcome(error);
  }
}

/** Fails a pending payment (never a completed one), with the delivery's record when there is one. */
// Access: TransactWriteItems [Put PAYMENT#<id>/EVENT#<event_id> attribute_not_exists(pk), Update PAYMENT#<id> status = pending (moves to PAYMENTS#CLOSED)].
export async function failPayment(input: {
  payment: Payment;
  eventId?: string;
  nowIso: string;
}): Promise<SettleOutcome> {
  try {
    await transact({
      ...seen(input.payment.id, input.eventId, 'failed', input.nowIso),
      payment: settle(input.payment, { status: 'failed', failed_at: input.nowIso }),
    });
    return 'applied';
  } catch (error) {
    return settleOutcome(error);
  }
}

/** Stores a pending payment the provider never completed as `expired`; false when it was settled meanwhile. */
// Access: UpdateItem pk=PAYMENT#<id> SET status = expired (moves to PAYMENTS#CLOSED), condition status = pending.
export const expirePayment = (payment: Payment, nowIso: string): Promise<boolean> =>
  PaymentEntity.update(
    { id: payment.id },
    { set: { status: 'expired', expired_at: nowIso }, read: payment },
    stillPending,
  );

/**
 * Takes back what a completed payment gave, once its gateway refunded it (in full or in part: a
 * partial refund is not a paid forfait): completed -> refunded, its access code and entitlement
 * ended now (RADIUS refuses a code past its `expires_at`), the sale taken off the books (the
 * ledger's bookings with the opposite sign), with the delivery's record when one told it.
 * `unchanged`: not completed (refunded already, or never paid).
 */
// Access: TransactWriteItems [Put PAYMENT#<id>/EVENT#<event_id> attribute_not_exists(pk), Update PAYMENT#<id> status = completed -> refunded, Update CODE#<code> SET expires_at, revoked_at (a top-up: its limits taken back, devices_version = as read), Update SUB#<sub>/ENT#<id> SET expires_at, the ledger's bookings of the refund].
export async function refundPayment(input: {
  payment: Payment;
  eventId?: string;
  /** The refund's entries in the books of its month and day. */
  bookings: Record<string, TxItem>;
  /** A refunded top-up's write of its code (what it added taken back), instead of ending the code. */
  codeItem?: TxItem;
  nowIso: string;
}): Promise<SettleOutcome> {
  const { payment, nowIso } = input;
  const items: Record<string, TxItem> = {
    ...seen(payment.id, input.eventId, 'refunded', nowIso),
    payment: PaymentEntity.tx.update(
      { id: payment.id },
      { set: { status: 'refunded', refunded_at: nowIso }, read: payment },
      statusIs('completed'),
    ),
    ...(input.codeItem
      ? { code: input.codeItem }
      : payment.access_code
        ? {
            code: Access.tx.update(
              { code: payment.access_code },
              { set: { expires_at: nowIso, revoked_at: nowIso } },
              exists,
            ),
          }
        : {}),
    entitlement: EntitlementEntity.tx.update(
      { subscriber_id: payment.subscriber_id, id: payment.id },
      { set: { expires_at: nowIso } },
      exists,
    ),
    ...input.bookings,
  };
  try {
    await transact(items);
    return 'applied';
  } catch (error) {
    // The topped-up code changed since it was read (a login, another top-up): read it again.
    if (input.codeItem && cancelled(error)?.failed('code')) return 'conflict';
    return settleOutcome(error);
  }
}
