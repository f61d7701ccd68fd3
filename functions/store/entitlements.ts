import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/**
 * An access entitlement: what a completed payment or a redeemed voucher grants a subscriber
 * (duration, data limit, rates). Active ones are listed through gsi2 (ENT#ACTIVE by expiry), as
 * the monitoring overview counts them.
 */
export interface Entitlement {
  id: string;
  subscriber_id: string;
  source: 'payment' | 'voucher';
  source_id: string;
  forfait_id: string;
  data_limit_mb: number;
  cir_kbps: number;
  mir_kbps: number;
  starts_at: string;
  expires_at: string;
}

/** Kept this long after expiry before DynamoDB's TTL removes it (history for support). */
const KEEP_AFTER_EXPIRY_S = 30 * 24 * 3600;

const keys = {
  entitlement: (subscriberId: string, id: string) => ({ pk: `SUB#${subscriberId}`, sk: `ENT#${id}` }),
  active: (expiresAt: string) => ({ gsi2pk: 'ENT#ACTIVE', gsi2sk: expiresAt }),
};

/** The Put of an entitlement, for the transaction that settles a payment or redeems a voucher. */
// Access: PutItem pk=SUB#<subscriber_id>, sk=ENT#<id> with attribute_not_exists(pk) (in a transaction).
export function entitlementPut(e: Entitlement): {
  TableName: string;
  Item: Record<string, unknown>;
  ConditionExpression: string;
} {
  return {
    TableName: tableName(),
    Item: {
      ...keys.entitlement(e.subscriber_id, e.id),
      ...keys.active(e.expires_at),
      entity: 'entitlement',
      ...e,
      ttl: Math.floor(Date.parse(e.expires_at) / 1000) + KEEP_AFTER_EXPIRY_S,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
}

// Access: Query pk=SUB#<subscriber_id> AND begins_with(sk, 'ENT#').
export async function listEntitlements(subscriberId: string): Promise<Entitlement[]> {
  const out: Entitlement[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': `SUB#${subscriberId}`, ':s': 'ENT#' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const { pk, sk, entity, gsi2pk, gsi2sk, ttl, ...rest } = item;
      out.push(rest as Entitlement);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
