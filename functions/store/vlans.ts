import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { defaultRuleItems, ruleKeys } from './gateway-rules.js';
import { type NasRecord, nasItem, nasKeys } from './nas.js';
import { cancellationReasons } from './table.js';

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

export interface ResellerProfile {
  reseller_id: string;
  reseller_name?: string;
  site_count?: number;
  vlan_id?: number;
  nas_id?: string;
  slug?: string;
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
  reseller: (resellerId: string) => ({ pk: `RESELLER#${resellerId}`, sk: 'PROFILE' }),
};

export interface Pool {
  /** The next never-used id; undefined before the first allocation. */
  next: number | undefined;
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

// Access: GetItem pk=RESELLER#<id>, sk=PROFILE.
export async function getReseller(resellerId: string): Promise<ResellerProfile | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: vlanKeys.reseller(resellerId) }),
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
      Key: vlanKeys.reseller(resellerId),
      UpdateExpression:
        'SET reseller_id = :id, reseller_name = if_not_exists(reseller_name, :n), entity = :e',
      ExpressionAttributeValues: { ':id': resellerId, ':n': name, ':e': 'reseller' },
    }),
  );
}

export type AllocateResult = 'ok' | 'race' | 'duplicate';

/**
 * The allocation transaction: take the id (remove it from `free`, or advance `next` from the
 * value read), claim the NAS id, write the allocation, mark the reseller as holding it, and
 * create the VLAN's default gateway rules. All or nothing.
 */
// Access: TransactWriteItems [Update VLAN#COUNTER (condition on next/free read), Put VLAN#<id> (not exists),
// Put NAS#<nas_id> (not exists), Update RESELLER#<id> (no vlan_id yet), Put 3 x VLAN#<id>#RULES].
export async function allocateTx(input: {
  allocation: Allocation;
  slug: string;
  /** How the id was taken: from the free set, or by advancing `next` from `expectedNext`. */
  take: { kind: 'free' } | { kind: 'counter'; expectedNext: number | undefined };
}): Promise<AllocateResult> {
  const a = input.allocation;
  const counterUpdate: {
    UpdateExpression: string;
    ConditionExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  } =
    input.take.kind === 'free'
      ? {
          UpdateExpression: 'DELETE #free :id',
          ConditionExpression: 'contains(#free, :v)',
          ExpressionAttributeNames: { '#free': 'free' },
          ExpressionAttributeValues: { ':id': new Set([a.vlan_id]), ':v': a.vlan_id },
        }
      : {
          UpdateExpression: 'SET #next = :after, entity = :e',
          ConditionExpression:
            input.take.expectedNext === undefined ? 'attribute_not_exists(#next)' : '#next = :expected',
          ExpressionAttributeNames: { '#next': 'next' },
          ExpressionAttributeValues: {
            ':after': a.vlan_id + 1,
            ':e': 'vlan_counter',
            ...(input.take.expectedNext === undefined ? {} : { ':expected': input.take.expectedNext }),
          },
        };
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
          { Update: { TableName: tableName(), Key: vlanKeys.counter(), ...counterUpdate } },
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
              Key: vlanKeys.reseller(a.reseller_id),
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
    // The NAS id (index 2) or the reseller (index 3) is taken: final. Anything else lost a race.
    if (reasons[2] === 'ConditionalCheckFailed' || reasons[3] === 'ConditionalCheckFailed')
      return 'duplicate';
    return 'race';
  }
}

// Access: GetItem pk=VLAN#<id>, sk=ALLOCATION.
export async function getAllocation(vlanId: number): Promise<Allocation | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: vlanKeys.allocation(vlanId) }));
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

/** All allocations (admin) or one reseller's, in VLAN id order. At most 400: read whole. */
// Access: Query gsi1 gsi1pk=VLANS (all) or Query gsi2 gsi2pk=RESELLER#<id>#VLAN (one reseller's).
export async function listAllocations(resellerId?: string): Promise<Allocation[]> {
  const items: Allocation[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        ...(resellerId
          ? {
              IndexName: 'gsi2',
              KeyConditionExpression: 'gsi2pk = :p',
              ExpressionAttributeValues: { ':p': `RESELLER#${resellerId}#VLAN` },
            }
          : {
              IndexName: 'gsi1',
              KeyConditionExpression: 'gsi1pk = :p',
              ExpressionAttributeValues: { ':p': 'VLANS' },
            }),
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) items.push(toAllocation(item));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Releases a VLAN in one transaction: the allocation, its NAS ids (VLAN and sites), its sites
 * and their branding, its rules go; the reseller keeps its name but no VLAN; the id joins
 * `free`, to be reused before the counter advances.
 */
// Access: TransactWriteItems [Delete VLAN#<id> (exists), Delete NAS/SITE/BRANDING items, Delete rules,
// Update RESELLER#<id> REMOVE vlan_id, Update VLAN#COUNTER ADD free].
export async function releaseTx(input: {
  allocation: Allocation;
  siteKeys: Record<string, string>[];
  nasIds: string[];
  brandingKeys: Record<string, string>[];
}): Promise<boolean> {
  const a = input.allocation;
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
          ...input.nasIds.map((id) => del(nasKeys.nas(id))),
          ...input.siteKeys.map(del),
          ...input.brandingKeys.map(del),
          ...[1, 2, 3].map((order) => del(ruleKeys.rule(a.vlan_id, order))),
          {
            Update: {
              TableName: tableName(),
              Key: vlanKeys.reseller(a.reseller_id),
              UpdateExpression: 'REMOVE vlan_id, nas_id, site_count',
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
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
