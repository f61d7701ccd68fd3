import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { type Entitlement, entitlementPut } from './entitlements.js';
import { revenueIncrement } from './revenue.js';
import { cancellationReasons, queryAll, queryCount, stripKeys } from './table.js';

export type VoucherStatus = 'active' | 'redeemed' | 'expired';

export interface Voucher {
  code: string;
  forfait_id: string;
  /** The forfait's price when the voucher was made: what its redemption adds to revenue. */
  price_fcfa: number;
  reseller_id: string;
  batch_id: string;
  /** Stored `active` or `redeemed`; a redeemed voucher whose access has ended reads `expired`. */
  status: VoucherStatus;
  /** What the voucher grants, as the forfait was when the voucher was made (printed and sold). */
  offer?: { duration_hours: number; data_limit_mb: number; cir_kbps: number; mir_kbps: number };
  created_at: string;
  redeemed_at?: string;
  redeemed_by?: string;
  /** End of the access its redemption granted. */
  access_expires_at?: string;
}

/** Most Puts one TransactWriteItems may hold (DynamoDB's limit). */
export const VOUCHER_CHUNK = 100;

const keys = {
  voucher: (code: string) => ({ pk: `VOUCHER#${code}`, sk: 'VOUCHER' }),
  /** A reseller's vouchers by status: the sort key changes on redemption. */
  byReseller: (resellerId: string, status: VoucherStatus, code: string) => ({
    gsi1pk: `VOUCHERS#${resellerId}`,
    gsi1sk: `${status}#${code}`,
  }),
  batch: (batchId: string, code: string) => ({ gsi2pk: `BATCH#${batchId}`, gsi2sk: code }),
};

const fromItem = (item: Record<string, unknown>): Voucher => stripKeys(item) as unknown as Voucher;

/**
 * Writes up to 100 new vouchers in one transaction, each only if its code is free. Returns the
 * codes that were taken (nothing was written then: the caller regenerates them and retries).
 */
// Access: TransactWriteItems of Put VOUCHER#<code> with attribute_not_exists(pk).
export async function putVouchers(vouchers: Voucher[]): Promise<string[]> {
  if (vouchers.length > VOUCHER_CHUNK) throw new Error('too many vouchers for one transaction');
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: vouchers.map((v) => ({
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.voucher(v.code),
              ...keys.byReseller(v.reseller_id, v.status, v.code),
              ...keys.batch(v.batch_id, v.code),
              entity: 'voucher',
              ...v,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        })),
      }),
    );
    return [];
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons?.includes('ConditionalCheckFailed')) throw error;
    return vouchers.filter((_, i) => reasons[i] === 'ConditionalCheckFailed').map((v) => v.code);
  }
}

/**
 * Takes back vouchers of a generation that failed part way, so that a batch is all or nothing.
 * Only vouchers still active are removed (none can have been sold yet: their codes were never
 * returned to anyone).
 */
// Access: TransactWriteItems of Delete VOUCHER#<code> with status = active, 100 at a time.
export async function deleteVouchers(codes: string[]): Promise<void> {
  for (let start = 0; start < codes.length; start += VOUCHER_CHUNK) {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: codes.slice(start, start + VOUCHER_CHUNK).map((code) => ({
          Delete: {
            TableName: tableName(),
            Key: keys.voucher(code),
            ConditionExpression: '#s = :active',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':active': 'active' },
          },
        })),
      }),
    );
  }
}

// Access: GetItem pk=VOUCHER#<code>, sk=VOUCHER (ConsistentRead).
export async function getVoucher(code: string): Promise<Voucher | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: keys.voucher(code), ConsistentRead: true }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/**
 * Redeems an active voucher: active -> redeemed, the entitlement and the reseller's monthly
 * aggregate in one transaction. False when the voucher is no longer active (another redeem won).
 */
// Access: TransactWriteItems [Update VOUCHER#<code> status = active (gsi1sk follows), Put SUB#<sub>/ENT#<id>, Update REVENUE#<reseller>/MONTH#<month> ADD].
export async function redeemVoucher(input: {
  voucher: Voucher;
  subscriberId: string;
  entitlement: Entitlement;
  month: string;
  nowIso: string;
}): Promise<'redeemed' | 'taken' | 'conflict'> {
  const v = input.voucher;
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.voucher(v.code),
              UpdateExpression:
                'SET #status = :redeemed, gsi1sk = :g, redeemed_at = :now, redeemed_by = :sub, access_expires_at = :until',
              ConditionExpression: '#status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':redeemed': 'redeemed',
                ':active': 'active',
                ':g': keys.byReseller(v.reseller_id, 'redeemed', v.code).gsi1sk,
                ':now': input.nowIso,
                ':sub': input.subscriberId,
                ':until': input.entitlement.expires_at,
              },
            },
          },
          { Put: entitlementPut(input.entitlement) },
          { Update: revenueIncrement(v.reseller_id, input.month, v.price_fcfa) },
        ],
      }),
    );
    return 'redeemed';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    if (reasons[0] === 'ConditionalCheckFailed' || reasons[1] === 'ConditionalCheckFailed') return 'taken';
    if (reasons.includes('TransactionConflict')) return 'conflict';
    throw error;
  }
}

/**
 * The Query of a reseller's vouchers of one visible status. `expired` and `redeemed` share the
 * stored `redeemed#` prefix and are told apart by the end of the access granted, at `nowIso`.
 */
function resellerCondition(resellerId: string, status: VoucherStatus | undefined, nowIso: string) {
  const stored = status === 'expired' ? 'redeemed' : status;
  const filter =
    status === 'expired'
      ? { FilterExpression: '#until <= :now' }
      : status === 'redeemed'
        ? { FilterExpression: 'attribute_not_exists(#until) OR #until > :now' }
        : {};
  return {
    IndexName: 'gsi1',
    KeyConditionExpression: stored ? 'gsi1pk = :p AND begins_with(gsi1sk, :s)' : 'gsi1pk = :p',
    ...filter,
    ...(filter.FilterExpression ? { ExpressionAttributeNames: { '#until': 'access_expires_at' } } : {}),
    ExpressionAttributeValues: {
      ':p': `VOUCHERS#${resellerId}`,
      ...(stored ? { ':s': `${stored}#` } : {}),
      ...(filter.FilterExpression ? { ':now': nowIso } : {}),
    },
  };
}

/** How many vouchers a reseller has (of one visible status, at `nowIso`). */
// Access: Query gsi1 gsi1pk=VOUCHERS#<reseller_id> [AND begins_with(gsi1sk, 'active#'|'redeemed#')] [Filter access_expires_at vs now], Select=COUNT.
export async function countVouchers(resellerId: string, status: VoucherStatus | undefined, nowIso: string) {
  return queryCount(resellerCondition(resellerId, status, nowIso));
}

/** One page of a reseller's vouchers, in code order within a status. */
// Access: Query gsi1 gsi1pk=VOUCHERS#<reseller_id> [AND begins_with(gsi1sk, 'active#'|'redeemed#')] [Filter access_expires_at vs now], Limit, skipping earlier pages.
export async function listVouchersPage(
  resellerId: string,
  status: VoucherStatus | undefined,
  page: number,
  pageSize: number,
  nowIso: string,
): Promise<Voucher[]> {
  let skip = (page - 1) * pageSize;
  const items: Voucher[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    // Limit counts the items read before the filter: never more than still to skip or to take.
    const out = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        ...resellerCondition(resellerId, status, nowIso),
        Limit: skip > 0 ? Math.min(skip, 1000) : pageSize - items.length,
        ExclusiveStartKey: start,
      }),
    );
    const got = out.Items ?? [];
    if (skip > 0) skip -= got.length;
    else for (const item of got) items.push(fromItem(item));
    start = out.LastEvaluatedKey;
  } while (start && items.length < pageSize);
  return items;
}

/** Every voucher of a generation batch (at most 1000), in code order. */
// Access: Query gsi2 gsi2pk=BATCH#<batch_id>.
export async function listBatch(batchId: string): Promise<Voucher[]> {
  const items = await queryAll({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :p',
    ExpressionAttributeValues: { ':p': `BATCH#${batchId}` },
  });
  return items.map(fromItem);
}
