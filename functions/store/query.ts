// A query of a partition: one page, all pages, or a count.

import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { type Expr, merged } from './expressions.js';
import { type GsiName, gsis, type Item } from './keys.js';
import { TABLE } from './table.js';

/** A query of a partition: primary (`index` absent) or one of the GSIs. */
export interface QuerySpec {
  /** The table's GSI; an entity's queries name the access pattern instead. */
  index?: GsiName;
  /** The partition value, built by the entity's declaration. */
  pk: string;
  sk?: { beginsWith: string } | { gt: string } | { lt: string } | { between: [string, string] };
  filter?: Expr;
  limit?: number;
  forward?: boolean;
  consistent?: boolean;
  start?: Item;
}

function keyCondition(spec: QuerySpec): Expr {
  const p = spec.index ? gsis[spec.index].partitionKey : TABLE.partitionKey;
  const s = spec.index ? gsis[spec.index].sortKey : TABLE.sortKey;
  const base: Expr = { expression: `${p} = :qpk`, values: { ':qpk': spec.pk } };
  const sk = spec.sk;
  if (!sk) return base;
  if ('beginsWith' in sk)
    return {
      expression: `${base.expression} AND begins_with(${s}, :qsk)`,
      values: { ':qpk': spec.pk, ':qsk': sk.beginsWith },
    };
  if ('gt' in sk)
    return { expression: `${base.expression} AND ${s} > :qsk`, values: { ':qpk': spec.pk, ':qsk': sk.gt } };
  if ('lt' in sk)
    return { expression: `${base.expression} AND ${s} < :qsk`, values: { ':qpk': spec.pk, ':qsk': sk.lt } };
  return {
    expression: `${base.expression} AND ${s} BETWEEN :qlo AND :qhi`,
    values: { ':qpk': spec.pk, ':qlo': sk.between[0], ':qhi': sk.between[1] },
  };
}

/** The Query input of a spec (table name, key condition, filter, paging). */
function queryInput(spec: QuerySpec): QueryCommandInput {
  const key = keyCondition(spec);
  return {
    TableName: tableName(),
    IndexName: spec.index,
    KeyConditionExpression: key.expression,
    FilterExpression: spec.filter?.expression,
    ...merged(key, spec.filter),
    Limit: spec.limit,
    ScanIndexForward: spec.forward,
    ConsistentRead: spec.consistent,
    ExclusiveStartKey: spec.start,
  };
}

/** One page of a query: the raw items and where the next page starts. */
export async function queryPage(spec: QuerySpec): Promise<{ items: Item[]; next?: Item }> {
  const out = await ddb().send(new QueryCommand(queryInput(spec)));
  return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/** Every item a query matches, page after page. */
export async function queryAll(spec: Omit<QuerySpec, 'start'>): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await queryPage({ ...spec, start });
    items.push(...page.items);
    start = page.next;
  } while (start);
  return items;
}

/** How many items a query matches (`Select: COUNT`, every page). */
export async function queryCount(spec: Omit<QuerySpec, 'start'>): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const out = await ddb().send(new QueryCommand({ ...queryInput({ ...spec, start }), Select: 'COUNT' }));
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}
