import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { type Entitlement, entitlementPut } from './entitlements.js';
import { revenueIncrement } from './revenue.js';
import { cancellationReasons, isConditionFailure, stripKeys } from './table.js';

export type Provider = 'orange_money' | 'mtn_momo' | 'moov_money' | 'wave';
export type PaymentStatus = 'pending' | 'completed' | 'failed';

export interface Payment {
  id: string;
  subscriber_id: string;
  forfait_id: string;
  forfait_name: string;
  /** What was bought, as sold at initiation: completion grants this even if the forfait changes. */
  offer?: { duration_hours: number; data_limit_mb: number; cir_kbps: number; mir_kbps: number };
  amount_fcfa: number;
  provider: Provider;
  /** The hotspot's reseller, or `unattributed` when the payment came without a NAS id. */
  reseller_id: string;
  nas_id?: string;
  status: PaymentStatus;
  payment_url?: string;
  created_at: string;
  /** ISO; a pending payment past this reads `expired`. */
  expires_at: string;
  completed_at?: string;
  failed_at?: string;
  provider_reference?: string;
  refusal_count?: number;
  refusals?: Refusal[];
}

/** A webhook delivery that did not match the payment (amount or provider), kept for audit. */
export interface Refusal {
  event_id: string;
  at: string;
  reason: string;
  amount_fcfa: number;
  provider: string;
}

/** Webhook events are remembered this long (the aggregator's redelivery window, and then some). */
export const EVENT_KEEP_S = 35 * 24 * 3600;
/** Payment and idempotency records are kept a year, then DynamoDB's TTL removes them. */
const PAYMENT_KEEP_S = 365 * 24 * 3600;

const keys = {
  payment: (id: string) => ({ pk: `PAYMENT#${id}`, sk: 'PAYMENT' }),
  idempotency: (subscriberId: string, key: string) => ({ pk: `IDEMP#${subscriberId}#${key}`, sk: 'IDEMP' }),
  event: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
};

const fromItem = (item: Record<string, unknown>): Payment => stripKeys(item) as unknown as Payment;

// Access: GetItem pk=PAYMENT#<id>, sk=PAYMENT (ConsistentRead).
export async function getPayment(id: string): Promise<Payment | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: keys.payment(id), ConsistentRead: true }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/** What an idempotency key already produced: the payment and the request that made it. */
export interface IdempotencyRecord {
  payment_id: string;
  /** Fingerprint of the request (forfait, provider, NAS id); absent on records of older code. */
  request?: string;
}

// Access: GetItem pk=IDEMP#<subscriber_id>#<key>, sk=IDEMP (ConsistentRead).
export async function getIdempotencyRecord(
  subscriberId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const out = await ddb().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.idempotency(subscriberId, key),
      ConsistentRead: true,
    }),
  );
  if (!out.Item) return undefined;
  return {
    payment_id: out.Item.payment_id as string,
    ...(typeof out.Item.request === 'string' ? { request: out.Item.request } : {}),
  };
}

/**
 * Creates a pending payment and, with a key, its idempotency record in the same transaction.
 * `created`: this call wrote it; `taken`: the key already names a payment (retry with a read);
 * `conflict`: a parallel transaction touched the key, read again.
 */
// Access: TransactWriteItems [Put PAYMENT#<id> attribute_not_exists(pk), Put IDEMP#<sub>#<key> attribute_not_exists(pk)].
export async function createPayment(
  p: Payment,
  idempotency: { key: string; request: string } | undefined,
  nowS: number,
): Promise<'created' | 'taken' | 'conflict'> {
  const ttl = nowS + PAYMENT_KEEP_S;
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.payment(p.id), entity: 'payment', ...p, ttl },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (idempotency) {
    items.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.idempotency(p.subscriber_id, idempotency.key),
          entity: 'idempotency',
          payment_id: p.id,
          request: idempotency.request,
          created_at: p.created_at,
          ttl,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  try {
    await ddb().send(new TransactWriteCommand({ TransactItems: items }));
    return 'created';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (reasons[1] === 'ConditionalCheckFailed') return 'taken';
    if (reasons.some((r) => r === 'TransactionConflict')) return 'conflict';
    throw error;
  }
}

// Access: UpdateItem pk=PAYMENT#<id>: SET payment_url.
export async function setPaymentUrl(id: string, url: string): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.payment(id),
      UpdateExpression: 'SET payment_url = :u',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':u': url },
    }),
  );
}

/** At most this many refusals are kept in full on a payment; beyond, only `refusal_count` grows. */
export const MAX_REFUSALS_KEPT = 20;

/**
 * Records a refused webhook delivery on the payment; the payment's status is not touched. The
 * list is capped so that a misbehaving sender cannot grow the item towards DynamoDB's 400 KB.
 */
// Access: UpdateItem pk=PAYMENT#<id>: ADD refusal_count 1, SET refusals = list_append(...) while refusal_count < 20; else ADD refusal_count only.
export async function recordRefusal(id: string, refusal: Refusal): Promise<void> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.payment(id),
        UpdateExpression:
          'ADD refusal_count :one SET refusals = list_append(if_not_exists(refusals, :empty), :r)',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(refusal_count) OR refusal_count < :max)',
        ExpressionAttributeValues: { ':one': 1, ':empty': [], ':r': [refusal], ':max': MAX_REFUSALS_KEPT },
      }),
    );
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.payment(id),
        UpdateExpression: 'ADD refusal_count :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export type SettleOutcome = 'applied' | 'unchanged' | 'conflict';

function settleOutcome(error: unknown): SettleOutcome {
  const reasons = cancellationReasons(error);
  if (!reasons) throw error;
  // The event was seen already, or the payment is no longer pending: at-least-once delivery.
  if (reasons[0] === 'ConditionalCheckFailed' || reasons[1] === 'ConditionalCheckFailed') return 'unchanged';
  if (reasons.some((r) => r === 'TransactionConflict')) return 'conflict';
  throw error;
}

function eventPut(eventId: string, paymentId: string, status: string, nowIso: string, nowS: number) {
  return {
    TableName: tableName(),
    Item: {
      ...keys.event(eventId),
      entity: 'webhook_event',
      event_id: eventId,
      payment_id: paymentId,
      status,
      received_at: nowIso,
      ttl: nowS + EVENT_KEEP_S,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

/**
 * Completes a payment: the event record, pending -> completed, the entitlement and the
 * reseller's monthly aggregate, all or nothing. A seen event or a settled payment cancels it.
 */
// Access: TransactWriteItems [Put EVENT#<event_id> attribute_not_exists(pk), Update PAYMENT#<id> status = pending, Put SUB#<sub>/ENT#<id>, Update REVENUE#<reseller>/MONTH#<month> ADD].
export async function completePayment(input: {
  payment: Payment;
  eventId: string;
  providerReference?: string;
  entitlement: Entitlement;
  month: string;
  nowIso: string;
  nowS: number;
}): Promise<SettleOutcome> {
  const { payment } = input;
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: eventPut(input.eventId, payment.id, 'completed', input.nowIso, input.nowS) },
          {
            Update: {
              TableName: tableName(),
              Key: keys.payment(payment.id),
              UpdateExpression: 'SET #status = :completed, completed_at = :now, provider_reference = :ref',
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':completed': 'completed',
                ':pending': 'pending',
                ':now': input.nowIso,
                ':ref': input.providerReference ?? null,
              },
            },
          },
          { Put: entitlementPut(input.entitlement) },
          { Update: revenueIncrement(payment.reseller_id, input.month, payment.amount_fcfa) },
        ],
      }),
    );
    return 'applied';
  } catch (error) {
    return settleOutcome(error);
  }
}

/** Fails a pending payment (never a completed one), with the event record. */
// Access: TransactWriteItems [Put EVENT#<event_id> attribute_not_exists(pk), Update PAYMENT#<id> status = pending].
export async function failPayment(input: {
  paymentId: string;
  eventId: string;
  nowIso: string;
  nowS: number;
}): Promise<SettleOutcome> {
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: eventPut(input.eventId, input.paymentId, 'failed', input.nowIso, input.nowS) },
          {
            Update: {
              TableName: tableName(),
              Key: keys.payment(input.paymentId),
              UpdateExpression: 'SET #status = :failed, failed_at = :now',
              ConditionExpression: '#status = :pending',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending', ':now': input.nowIso },
            },
          },
        ],
      }),
    );
    return 'applied';
  } catch (error) {
    return settleOutcome(error);
  }
}
