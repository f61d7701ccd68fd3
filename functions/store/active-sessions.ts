import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/**
 * Active sessions = entitlements not yet expired. Billing writes every entitlement with
 * gsi2pk = ENT#ACTIVE and gsi2sk = its expiry (ISO), so the count is one range query on the
 * index, whose cost follows the live entitlements, never the table.
 */
const keys = {
  activeEntitlements: () => 'ENT#ACTIVE',
};

// Access: Query gsi2 gsi2pk=ENT#ACTIVE AND gsi2sk > :nowIso, Select=COUNT (paginated).
export async function countActiveSessions(nowIso: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p AND gsi2sk > :now',
        ExpressionAttributeValues: { ':p': keys.activeEntitlements(), ':now': nowIso },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}
