// The payment's record and its writes: created with its idempotency key, its page URL, refused claims, a subscriber's payments.

import type { Currency } from '../core/currency.js';
import type { AccessOffer } from './access-codes.js';
import {
  absentOrBelow,
  allOf,
  cancelled,
  entity,
  exists,
  notExists,
  type TxItem,
  transact,
} from './entity.js';

/**
 * The mobile-money providers (operators) a payment is made with. The API's list is checked
 * against it (test/unit/store-records.test.ts): a stored payment names one of these.
 */
export type Provider = 'orange_money' | 'mtn_momo' | 'moov_money' | 'wave';
/**
 * The name of the payment gateway (company) a payment was opened with. The store does not list
 * the gateways (billing's registry does, functions/billing/gateways/registry.ts): a name is
 * branded so that only a name the registry validated (`gatewayNamed`) is stored, and one read
 * back is checked by the registry again before use. Adding a gateway does not touch the store.
 */
export type PaymentGateway = string & { readonly __brand: 'PaymentGateway' };
/**
 * `expired`: stored by reconciliation once the provider's deadline passed unpaid. `refunded`: the
 * gateway gave the money back (in full or in part) after it was completed: its code is taken
 * back. Terminal.
 */
type PaymentStatus = 'pending' | 'completed' | 'failed' | 'expired' | 'refunded';

export interface Payment {
  id: string;
  /** False: the code is shown on the buyer's screen and not texted at completion. */
  code_sms?: boolean;
  subscriber_id: string;
  forfait_id: string;
  forfait_name: string;
  /** What was bought, as sold at initiation: completion grants this even if the forfait changes. */
  offer: AccessOffer;
  amount_fcfa: number;
  /** XOF or XAF, from the reseller's country. */
  currency: Currency;
  provider: Provider;
  /** The gateway it was opened with (absent: older payments, the generic aggregator or sandbox). */
  gateway?: PaymentGateway;
  /** The hotspot's reseller, or `unattributed` when the payment came without a NAS id. */
  reseller_id: string;
  nas_id?: string;
  /** A PPPoE renewal: this subscriber's next period is sold at completion, instead of a code (functions/billing/pppoe-renewals.ts). */
  pppoe_subscriber_id?: string;
  /** A top-up: the code in use its forfait is added to at completion, instead of a new code (functions/billing/topups.ts). */
  topup_code?: string;
  status: PaymentStatus;
  payment_url?: string;
  created_at: string;
  /** ISO; a pending payment past this reads `expired`. */
  expires_at: string;
  completed_at?: string;
  failed_at?: string;
  expired_at?: string;
  /** When the gateway's refund (full or partial) took the code back. */
  refunded_at?: string;
  /** The provider's id of the payment (FedaPay's transaction id), or its operator reference once paid. */
  provider_reference?: string;
  /** Last time a status read or reconciliation asked the provider (at most once per 30 s). */
  last_checked_at?: string;
  /** The buyer's number (E.164): the access code goes to it by SMS. */
  msisdn?: string;
  /** The access code the completed purchase created. */
  access_code?: string;
  refusal_count?: number;
  refusals?: Refusal[];
  /** Set by the paid-not-connected job: completed, and its code had no login 15 minutes later. */
  unused_flagged_at?: string;
  /** How many times its code was texted again (`POST /payments/{id}/resend-code`), at most MAX_CODE_RESENDS. */
  code_resends?: number;
}

/** A webhook delivery that did not match the payment (amount or provider), kept for audit. */
export interface Refusal {
  event_id: string;
  at: string;
  reason: string;
  amount_fcfa: number;
  provider: string;
  currency?: string;
}

/** Payment and idempotency records are kept a year, then DynamoDB's TTL removes them. */
const PAYMENT_KEEP_S = 365 * 24 * 3600;

/** Seconds since the epoch of an ISO instant: the clock of the TTLs below. */
export const epochS = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** When DynamoDB may drop a payment's items: a year after the payment was made. */
const paymentExpiry = (p: Pick<Payment, 'created_at'>) => epochS(p.created_at) + PAYMENT_KEEP_S;

export const PaymentEntity = entity<Payment>('payment')({
  key: (p: Pick<Payment, 'id'>) => ({ pk: `PAYMENT#${p.id}`, sk: 'PAYMENT' }),
  indexes: {
    /**
     * Unsettled payments by creation time, for reconciliation: the pending ones, and the failed or
     * expired ones (`PAYMENTS#CLOSED`), which a late completion the gateway confirms may still
     * credit. Sparse: completing (or refunding) a payment removes its keys.
     */
    pending: {
      gsi: 'gsi1',
      composite: ['status', 'created_at', 'id'],
      pk: (p: Pick<Payment, 'status'>) => (p.status === 'pending' ? 'PAYMENTS#PENDING' : 'PAYMENTS#CLOSED'),
      sk: (p: Pick<Payment, 'created_at' | 'id'>) => `${p.created_at}#${p.id}`,
      when: (p: Payment) => p.status !== 'completed' && p.status !== 'refunded',
    },
    /** A reseller's payments, newest first (the console's Paiements; functions/store/reseller-payments.ts). */
    byReseller: { gsi: 'gsi2', pk: 'RESELLER#{reseller_id}#PAYMENTS', sk: '{created_at}#{id}' },
    /**
     * Completed payments by the hour of their completion (`PAYMENTS#COMPLETED#2026-11-23T21`):
     * the paid-not-connected job reads the last hour or so without a Scan. Time-bucketed, so no
     * partition grows for ever; a payment leaving `completed` (refund) leaves it.
     */
    completedByHour: {
      gsi: 'gsi3',
      composite: ['status', 'completed_at', 'id'],
      pk: (p: Pick<Payment, 'completed_at'>) =>
        `PAYMENTS#COMPLETED#${completedHour(String(p.completed_at ?? ''))}`,
      sk: (p: Pick<Payment, 'completed_at' | 'id'>) => `${p.completed_at}#${p.id}`,
      when: (p: Payment) => p.status === 'completed',
    },
    /**
     * A subscriber's payments, by creation (erasing a subscriber takes its number off each). On
     * gsi4, which projects only `id`: written once with the payment (no update moves these keys),
     * read only by the erasure. A payment of before this index is found through its code.
     */
    bySubscriber: {
      gsi: 'gsi4',
      composite: ['subscriber_id', 'created_at', 'id'],
      pk: (p: Pick<Payment, 'subscriber_id'>) => `SUBSCRIBER#${p.subscriber_id}#PAYMENTS`,
      sk: (p: Pick<Payment, 'created_at' | 'id'>) => `${p.created_at}#${p.id}`,
    },
  },
  ttl: paymentExpiry,
});

/** The hour bucket of the completed-payments index: `2026-11-23T21`. */
export const completedHour = (iso: string): string => iso.slice(0, 13);

/** What an idempotency key already produced: the payment and the request that made it. */
export interface IdempotencyRecord {
  payment_id: string;
  /** Fingerprint of the request (forfait, provider, NAS id). */
  request: string;
}

/**
 * An idempotency key's record. Its key holds the subscriber and the key, which its item does not
 * repeat: it is written by an update of exactly its attributes (see `createPayment`).
 */
const Idempotency = entity<IdempotencyRecord & { created_at: string }>('idempotency')({
  key: (k: { subscriber_id: string; key: string }) => ({
    pk: `IDEMP#${k.subscriber_id}#${k.key}`,
    sk: 'IDEMP',
  }),
  // Kept as long as its payment.
  ttl: paymentExpiry,
});

// Access: GetItem pk=PAYMENT#<id>, sk=PAYMENT (ConsistentRead).
export const getPayment = (id: string): Promise<Payment | undefined> =>
  PaymentEntity.get({ id }, { consistent: true });

// Access: GetItem pk=IDEMP#<subscriber_id>#<key>, sk=IDEMP (ConsistentRead).
export const getIdempotencyRecord = (
  subscriberId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> =>
  Idempotency.get({ subscriber_id: subscriberId, key }, { consistent: true });

/**
 * Creates a pending payment and, with a key, its idempotency record in the same transaction.
 * `created`: this call wrote it; `taken`: the key already names a payment (retry with a read);
 * `conflict`: a parallel transaction touched the key, read again. Both expire a year after the
 * payment's `created_at`.
 */
// Access: TransactWriteItems [Put PAYMENT#<id> attribute_not_exists(pk), Update IDEMP#<sub>#<key> SET its attributes, attribute_not_exists(pk)].
export async function createPayment(
  p: Payment,
  idempotency: { key: string; request: string } | undefined,
): Promise<'created' | 'taken' | 'conflict'> {
  const items: Record<string, TxItem> = { payment: PaymentEntity.tx.create(p) };
  if (idempotency) {
    items.idempotency = Idempotency.tx.upsert(
      { subscriber_id: p.subscriber_id, key: idempotency.key },
      { set: { payment_id: p.id, request: idempotency.request, created_at: p.created_at } },
      notExists,
    );
  }
  try {
    await transact(items);
    return 'created';
  } catch (error) {
    const c = cancelled(error);
    if (!c) throw error;
    if (c.failed('idempotency')) return 'taken';
    if (c.conflict) return 'conflict';
    throw error;
  }
}

// Access: UpdateItem pk=PAYMENT#<id>: SET payment_url[, provider_reference].
export async function setPaymentUrl(id: string, url: string, providerReference?: string): Promise<void> {
  const set = await PaymentEntity.update(
    { id },
    { set: { payment_url: url, ...(providerReference ? { provider_reference: providerReference } : {}) } },
    exists,
  );
  // Called with a payment just read or written: one that is gone is a fault, not a case.
  if (!set) throw new Error(`payment ${id} is gone`);
}

/** At most this many refusals are kept in full on a payment; beyond, only `refusal_count` grows. */
const MAX_REFUSALS_KEPT = 20;

/**
 * Records a refused webhook delivery on the payment; the payment's status is not touched. The
 * list is capped so that a misbehaving sender cannot grow the item towards DynamoDB's 400 KB.
 */
// Access: UpdateItem pk=PAYMENT#<id>: ADD refusal_count 1, SET refusals = list_append(...) while refusal_count < 20; else ADD refusal_count only.
export async function recordRefusal(id: string, refusal: Refusal): Promise<void> {
  const kept = await PaymentEntity.update(
    { id },
    {
      add: { refusal_count: 1 },
      append: { refusals: [refusal] },
    },
    allOf(exists, absentOrBelow('refusal_count', MAX_REFUSALS_KEPT)),
  );
  if (kept) return;
  await PaymentEntity.update({ id }, { add: { refusal_count: 1 } }, exists);
}

/** The ids of a subscriber's payments (gsi4 holds only the id). */
// Access: Query bySubscriber (gsi4) gsi4pk=SUBSCRIBER#<subscriber_id>#PAYMENTS.
export const paymentIdsOfSubscriber = async (subscriberId: string): Promise<string[]> =>
  (await PaymentEntity.queryIndexAll('bySubscriber', { subscriber_id: subscriberId })).map((p) => p.id);

/**
 * Takes the buyer's number off a payment (an erased subscriber): the amount, dates, reseller and
 * provider reference stay for the books. The payment as read (undefined: none), and whether
 * this call took a number off.
 */
// Access: GetItem pk=PAYMENT#<id> (ConsistentRead), then UpdateItem REMOVE msisdn (condition attribute_exists(msisdn)).
export async function forgetPaymentMsisdn(id: string): Promise<{ payment?: Payment; changed: boolean }> {
  const payment = await PaymentEntity.get({ id }, { consistent: true });
  if (!payment?.msisdn) return { ...(payment ? { payment } : {}), changed: false };
  const changed = await PaymentEntity.update(
    { id },
    { set: { msisdn: undefined } },
    PaymentEntity.where.has('msisdn'),
  );
  return { payment, changed };
}
