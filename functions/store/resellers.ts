import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/**
 * A reseller's network profile: its name (recorded by the operator CLI or at allocation), its
 * site count, and while it holds one, its VLAN. `releasing` marks a VLAN being released: no
 * site may be added to it then.
 */
export interface ResellerProfile {
  reseller_id: string;
  reseller_name?: string;
  site_count?: number;
  vlan_id?: number;
  nas_id?: string;
  slug?: string;
  releasing?: number;
}

export const resellerKeys = {
  profile: (resellerId: string) => ({ pk: `RESELLER#${resellerId}`, sk: 'PROFILE' }),
};

// Access: GetItem pk=RESELLER#<id>, sk=PROFILE (strongly consistent: read just before a write).
export async function getReseller(resellerId: string): Promise<ResellerProfile | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: resellerKeys.profile(resellerId), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  const { pk, sk, entity, ...rest } = out.Item;
  return rest as ResellerProfile;
}

/** Records a reseller's name (operator CLI), unless it already has one. */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET reseller_name = if_not_exists(...).
export async function recordResellerName(resellerId: string, name: string): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: resellerKeys.profile(resellerId),
      UpdateExpression:
        'SET reseller_id = :id, reseller_name = if_not_exists(reseller_name, :n), entity = :e',
      ExpressionAttributeValues: { ':id': resellerId, ':n': name, ':e': 'reseller' },
    }),
  );
}

/** Marks the reseller's VLAN as being released; false when it does not hold that VLAN. */
// Access: UpdateItem pk=RESELLER#<id>, sk=PROFILE SET releasing, condition vlan_id = :v.
export async function markReleasing(resellerId: string, vlanId: number): Promise<boolean> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: resellerKeys.profile(resellerId),
        UpdateExpression: 'SET releasing = :v',
        ConditionExpression: 'vlan_id = :v',
        ExpressionAttributeValues: { ':v': vlanId },
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
