import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { brandingKeys } from './branding.js';
import { defaultRuleItems, defaultRuleKeys } from './gateway-rules.js';
import { type NasRecord, nasItem, nasKeys } from './nas.js';
import { resellerKeys } from './resellers.js';
import { cancellationReasons, queryAll } from './table.js';

export { getReseller, type ResellerProfile, recordResellerName } from './resellers.js';

/**
 * VLAN allocations. Ids come from one counter item: `next` (the next never-used id) and `free`
 * (a number set of released ids, reused first). An allocation takes its id and writes
 * everything that goes with it in ONE transaction, conditioned on the counter as read.
 */
export interface Allocation {
  vlan_id: number;
  reseller_id: string;
  reseller_name: string;
  subnet: string;
  nas_id: string;
  ssid: string;
  site_count: number;
  created_at: string;
}

const pad = (n: number) => String(n).padStart(5, '0');

export const vlanKeys = {
  counter: () => ({ pk: 'VLAN#COUNTER', sk: 'COUNTER' }),
  allocation: (vlanId: number) => ({ pk: `VLAN#${vlanId}`, sk: 'ALLOCATION' }),
  /** Every allocation, in id order, through gsi1; a reseller's own through gsi2. */
  allIndex: (vlanId: number) => ({ gsi1pk: 'VLANS', gsi1sk: pad(vlanId) }),
  resellerIndex: (resellerId: string, vlanId: number) => ({
    gsi2pk: `RESELLER#${resellerId}#VLAN`,
    gsi2sk: pad(vlanId),
  }),
};

export interface Pool {
  /** The next never-used id; undefined before the first allocation. */
  next: number | undefined;
  /** Released ids, lowest first. */
  free: number[];
}

// Access: GetItem pk=VLAN#COUNTER (strongly consistent: the transaction is conditioned on it).
export async function readPool(): Promise<Pool> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: vlanKeys.counter(), ConsistentRead: true }),
  );
  const free = out.Item?.free as Set<number> | undefined;
  return {
    next: typeof out.Item?.next === 'number' ? out.Item.next : undefined,
    free: free ? [...free].sort((a, b) => a - b) : [],
  };
}

/** `race`: the counter moved since it was read (try again). `duplicate`: NAS id or reseller taken. */
export type AllocateResult = 'ok' | 'race' | 'duplicate';

type Take =
  /** Reuse a released id: remove it from `free`, which must still hold it. */
  | { kind: 'free' }
  /** Advance `next` from the value read; `freeWasEmpty`: and no id was released meanwhile. */
  | { kind: 'counter'; expectedNext: number | undefined; freeWasEmpty: boolean };

function counterUpdate(vlanId: number, take: Take) {
  if (take.kind === 'free') {
    return {
      UpdateExpression: 'DELETE #free :id',
      ConditionExpression: 'contains(#free, :v)',
      ExpressionAttributeNames: { '#free': 'free' },
      ExpressionAttributeValues: { ':id': new Set([vlanId]), ':v': vlanId } as Record<string, unknown>,
    };
  }
  const conditions = [take.expectedNext === undefined ? 'attribute_not_exists(#next)' : '#next = :expected'];
  // Released ids go first: an id released since the read sends this attempt round again.
  if (take.freeWasEmpty) conditions.push('attribute_not_exists(#free)');
  return {
    UpdateExpression: 'SET #next = :after, entity = :e',
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: { '#next': 'next', ...(take.freeWasEmpty ? { '#free': 'free' } : {}) },
    ExpressionAttributeValues: {
      ':after': vlanId + 1,
      ':e': 'vlan_counter',
      ...(take.expectedNext === undefined ? {} : { ':expected': take.expectedNext }),
    } as Record<string, unknown>,
  };
}

/**
 * The allocation transaction: take the id (remove it from `free`, or advance `next` from the
 * value read), claim the NAS id, write the allocation, mark the reseller as holding it, and
 * create the VLAN's default gateway rules. All or nothing.
 */
// Access: TransactWriteItems [Update VLAN#COUNTER (condition on next/free as read), Put VLAN#<id> (not exists),
// Put NAS#<nas_id> (not exists), Update RESELLER#<id>/PROFILE (no vlan_id yet), Put 3 x VLAN#<id>#RULES (not exists)].
export async function allocateTx(input: {
  allocation: Allocation;
  slug: string;
  take: Take;
}): Promise<AllocateResult> {
  const a = input.allocation;
  const nas: NasRecord = {
    nas_id: a.nas_id,
    reseller_id: a.reseller_id,
    reseller_name: a.reseller_name,
    vlan_id: a.vlan_id,
    kind: 'vlan',
  };
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: vlanKeys.counter(),
              ...counterUpdate(a.vlan_id, input.take),
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...vlanKeys.allocation(a.vlan_id),
                ...vlanKeys.allIndex(a.vlan_id),
                ...vlanKeys.resellerIndex(a.reseller_id, a.vlan_id),
                entity: 'vlan',
                ...a,
                slug: input.slug,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: nasItem(nas),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: resellerKeys.profile(a.reseller_id),
              UpdateExpression:
                'SET reseller_id = :rid, reseller_name = :n, site_count = :sc, vlan_id = :v, nas_id = :nas, slug = :slug, entity = :e',
              ConditionExpression: 'attribute_not_exists(vlan_id)',
              ExpressionAttributeValues: {
                ':rid': a.reseller_id,
                ':n': a.reseller_name,
                ':sc': a.site_count,
                ':v': a.vlan_id,
                ':nas': a.nas_id,
                ':slug': input.slug,
                ':e': 'reseller',
              },
            },
          },
          ...defaultRuleItems(a.vlan_id).map((Item) => ({
            Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
          })),
        ],
      }),
    );
    return 'ok';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    // The NAS id (index 2) or the reseller (index 3) is taken: final, whatever else failed.
    if (reasons[2] === 'ConditionalCheckFailed' || reasons[3] === 'ConditionalCheckFailed')
      return 'duplicate';
    // The counter moved, or another transaction held one of the items: read again and retry.
    if (reasons[0] === 'ConditionalCheckFailed' || reasons.includes('TransactionConflict')) return 'race';
    // The pool offered an id whose allocation or rules exist: the data is inconsistent, do not loop.
    throw error;
  }
}

// Access: GetItem pk=VLAN#<id>, sk=ALLOCATION (strongly consistent).
export async function getAllocation(vlanId: number): Promise<Allocation | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: vlanKeys.allocation(vlanId), ConsistentRead: true }),
  );
  return out.Item ? toAllocation(out.Item) : undefined;
}

const toAllocation = (item: Record<string, unknown>): Allocation => ({
  vlan_id: item.vlan_id as number,
  reseller_id: item.reseller_id as string,
  reseller_name: item.reseller_name as string,
  subnet: item.subnet as string,
  nas_id: item.nas_id as string,
  ssid: item.ssid as string,
  site_count: item.site_count as number,
  created_at: item.created_at as string,
});

/** All allocations (admin) or one reseller's, in VLAN id order. At most the pool: read whole. */
// Access: Query gsi1 gsi1pk=VLANS (all) or Query gsi2 gsi2pk=RESELLER#<id>#VLAN (one reseller's).
export async function listAllocations(resellerId?: string): Promise<Allocation[]> {
  const items = await queryAll(
    resellerId
      ? {
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :p',
          ExpressionAttributeValues: { ':p': vlanKeys.resellerIndex(resellerId, 0).gsi2pk },
        }
      : {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': vlanKeys.allIndex(0).gsi1pk },
        },
  );
  return items.map(toAllocation);
}

/**
 * The last step of a release (its sites are gone already), in one transaction: the allocation,
 * its NAS id, that hotspot's branding and the VLAN's rules go; the reseller keeps its name and
 * site count but no VLAN; the id joins `free`, to be reused before the counter advances.
 * False when the VLAN was not allocated (any more).
 */
// Access: TransactWriteItems [Delete VLAN#<id> (exists), Delete NAS#<nas_id>, Delete BRANDING#<nas_id>,
// Delete the default VLAN#<id>#RULES, Update RESELLER#<id>/PROFILE REMOVE vlan_id (vlan_id = :v), Update VLAN#COUNTER ADD free].
export async function releaseTx(a: Allocation): Promise<boolean> {
  const del = (Key: Record<string, string>) => ({ Delete: { TableName: tableName(), Key } });
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName(),
              Key: vlanKeys.allocation(a.vlan_id),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          del(nasKeys.nas(a.nas_id)),
          del(brandingKeys.branding(a.nas_id)),
          ...defaultRuleKeys(a.vlan_id).map(del),
          {
            Update: {
              TableName: tableName(),
              Key: resellerKeys.profile(a.reseller_id),
              UpdateExpression: 'REMOVE vlan_id, nas_id, slug, releasing',
              ConditionExpression: 'vlan_id = :v',
              ExpressionAttributeValues: { ':v': a.vlan_id },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: vlanKeys.counter(),
              UpdateExpression: 'ADD #free :id',
              ExpressionAttributeNames: { '#free': 'free' },
              ExpressionAttributeValues: { ':id': new Set([a.vlan_id]) },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    const reasons = cancellationReasons(error);
    // The allocation, or the reseller's hold on it, is gone: released already.
    if (reasons?.[0] === 'ConditionalCheckFailed' || reasons?.[6] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
