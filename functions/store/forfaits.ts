import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../core/clock.js';
import { ddb, tableName } from '../core/ddb.js';
import { isConditionFailure, queryAll } from './table.js';

export interface Forfait {
  id: string;
  name: string;
  price_fcfa: number;
  duration_hours: number;
  data_limit_mb: number;
  cir_kbps: number;
  mir_kbps: number;
}

export interface StoredForfait extends Forfait {
  status: 'active' | 'retired';
  created_at: string;
  updated_at: string;
}

const keys = {
  forfait: (id: string) => ({ pk: `FORFAIT#${id}`, sk: 'FORFAIT' }),
  /** Only forfaits on sale carry gsi1 keys; retiring one removes them (sparse index). */
  onSale: (f: Forfait) => ({
    gsi1pk: 'FORFAITS#ACTIVE',
    gsi1sk: `${String(f.price_fcfa).padStart(10, '0')}#${f.id}`,
  }),
};

export function publicForfait(item: Record<string, unknown>): Forfait {
  return {
    id: item.id as string,
    name: item.name as string,
    price_fcfa: item.price_fcfa as number,
    duration_hours: item.duration_hours as number,
    data_limit_mb: item.data_limit_mb as number,
    cir_kbps: item.cir_kbps as number,
    mir_kbps: item.mir_kbps as number,
  };
}

function stored(item: Record<string, unknown>): StoredForfait {
  return {
    ...publicForfait(item),
    status: item.status as 'active' | 'retired',
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

// Access: Query gsi1 gsi1pk=FORFAITS#ACTIVE, sorted by price (the catalogue is dozens of items).
export async function listForfaitsOnSale(): Promise<Forfait[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': 'FORFAITS#ACTIVE' },
  });
  return items.map(publicForfait);
}

/** Any forfait, retired ones included (old payments keep pointing at them). */
// Access: GetItem pk=FORFAIT#<id>, sk=FORFAIT.
export async function getForfait(id: string): Promise<StoredForfait | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: keys.forfait(id) }));
  return out.Item ? stored(out.Item) : undefined;
}

/** Creates a forfait on sale; false when the id is taken. */
// Access: PutItem pk=FORFAIT#<id> with attribute_not_exists(pk).
export async function createForfait(f: Forfait): Promise<boolean> {
  const now = clock.iso();
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.forfait(f.id),
          ...keys.onSale(f),
          entity: 'forfait',
          ...f,
          status: 'active',
          created_at: now,
          updated_at: now,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Changes the offer of a forfait still on sale; undefined when there is none. */
// Access: UpdateItem pk=FORFAIT#<id> with status = active; the price-ordered gsi1sk follows.
export async function updateForfait(
  id: string,
  changes: Partial<Omit<Forfait, 'id'>>,
): Promise<StoredForfait | undefined> {
  const current = await getForfait(id);
  if (current?.status !== 'active') return undefined;
  const next: Forfait = { ...publicForfait(current as unknown as Record<string, unknown>), ...changes, id };
  const fields = Object.keys(changes) as (keyof Forfait)[];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':active': 'active',
    ':now': clock.iso(),
    ':g': keys.onSale(next).gsi1sk,
  };
  const sets = ['updated_at = :now', 'gsi1sk = :g'];
  for (const f of fields) {
    names[`#${f}`] = f;
    values[`:${f}`] = next[f];
    sets.push(`#${f} = :${f}`);
  }
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.forfait(id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { ...names, '#status': 'status' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes ? stored(out.Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Takes a forfait off sale; the item stays for the payments that reference it. */
// Access: UpdateItem pk=FORFAIT#<id>: status = retired, REMOVE gsi1 keys (leaves the sparse index).
export async function retireForfait(id: string): Promise<boolean> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.forfait(id),
        UpdateExpression: 'SET #status = :retired, updated_at = :now REMOVE gsi1pk, gsi1sk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':retired': 'retired', ':now': clock.iso() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
