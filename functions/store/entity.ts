import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/**
 * One declaration per entity: how its keys are built from its attributes, its item type, and
 * the (un)marshalling every read, write and transaction item goes through. After it, a key
 * string is written only in the entity's own declaration.
 *
 * A small helper of our own rather than ElectroDB or dynamodb-toolbox: both fit the single
 * table, but each adds its own expression language and a runtime to every function bundle
 * (measured in docs/decisions.md), while our access patterns are a dozen conditional writes
 * and transactions written once each.
 */

/** Key and bookkeeping attributes: never part of an entity's own type. */
const RESERVED = ['pk', 'sk', 'entity', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'ttl'] as const;

export type PrimaryKey = { pk: string; sk: string };
export type IndexName = 'gsi1' | 'gsi2';
export type Item = Record<string, unknown>;

/** An index of an entity: its partition and sort values, from (a part of) the entity. */
export interface IndexDef<T> {
  pk: (t: T) => string;
  sk: (t: T) => string;
  /** Sparse index: the item carries this index's keys only while this holds. */
  when?: (t: T) => boolean;
}

export interface EntityDef<T, K, I extends Indexes<T> = Indexes<T>> {
  /** The `entity` attribute of its items. */
  name: string;
  key: (k: K) => PrimaryKey;
  indexes?: I;
  /** Epoch seconds after which DynamoDB may delete the item (cleanup only: code checks expiry). */
  ttl?: (t: T) => number | undefined;
}

/** A condition or update expression with its names and values. */
export interface Expr {
  expression: string;
  names?: Record<string, string>;
  values?: Item;
}

/** One item of a TransactWriteItems, as DynamoDB takes it. */
export type TxItem = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>[number];

/** A query of a partition: primary (`index` absent) or one of the GSIs. */
export interface QuerySpec {
  index?: IndexName;
  /** The partition value, built by the entity's declaration. */
  pk: string;
  sk?: { beginsWith: string } | { gt: string } | { lt: string } | { between: [string, string] };
  filter?: Expr;
  limit?: number;
  forward?: boolean;
  consistent?: boolean;
  start?: Item;
}

const names = (e?: Expr) => e?.names;
const values = (e?: Expr) => e?.values;

/** Merges the names and values of several expressions (undefined when none has any). */
function merged(...exprs: (Expr | undefined)[]) {
  const n = Object.assign({}, ...exprs.map(names));
  const v = Object.assign({}, ...exprs.map(values));
  return {
    ExpressionAttributeNames: Object.keys(n).length ? n : undefined,
    ExpressionAttributeValues: Object.keys(v).length ? v : undefined,
  };
}

function keyCondition(spec: QuerySpec): Expr {
  const p = spec.index ? `${spec.index}pk` : 'pk';
  const s = spec.index ? `${spec.index}sk` : 'sk';
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
export function queryInput(spec: QuerySpec): QueryCommandInput {
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

type Indexes<T> = Partial<Record<IndexName, IndexDef<T>>>;

export interface Entity<T, K, I extends Indexes<T> = Indexes<T>> {
  readonly name: string;
  /** The index declarations, with the narrow attribute types each key function needs. */
  readonly indexes: I;
  key(k: K): PrimaryKey;
  /** Queries one index partition, given the attributes its partition key is built from. */
  queryIndex<N extends keyof I & IndexName>(
    index: N,
    attrs: Parameters<NonNullable<I[N]>['pk']>[0],
    spec?: Omit<QuerySpec, 'index' | 'pk'>,
  ): Promise<{ items: T[]; next?: Item }>;
  /** Every item of one index partition. */
  queryIndexAll<N extends keyof I & IndexName>(
    index: N,
    attrs: Parameters<NonNullable<I[N]>['pk']>[0],
    spec?: Omit<QuerySpec, 'index' | 'pk' | 'start'>,
  ): Promise<T[]>;
  /** The whole stored item of `t`: keys, index keys, `entity`, TTL and the attributes. */
  item(t: T): Item;
  /** A stored item back to the entity: key and bookkeeping attributes removed. */
  parse(item: Item): T;
  get(k: K, options?: { consistent?: boolean }): Promise<T | undefined>;
  /** Puts the item; with `condition`, false when DynamoDB refused it. */
  put(t: T, condition?: Expr): Promise<boolean>;
  /** Updates an item; false when the condition refused it. `returnNew` gives the item after. */
  update(k: K, update: Expr, condition?: Expr): Promise<boolean>;
  updateReturning(k: K, update: Expr, condition?: Expr): Promise<T | undefined>;
  /** Deletes an item; false when the condition refused it. */
  delete(k: K, condition?: Expr): Promise<boolean>;
  query(spec: QuerySpec): Promise<{ items: T[]; next?: Item }>;
  queryAll(spec: Omit<QuerySpec, 'start'>): Promise<T[]>;
  tx: {
    put(t: T, condition?: Expr): TxItem;
    /** Puts only while no item has this key. */
    create(t: T): TxItem;
    update(k: K, update: Expr, condition?: Expr): TxItem;
    delete(k: K, condition?: Expr): TxItem;
    check(k: K, condition: Expr): TxItem;
  };
}

/** True when the error is DynamoDB's refusal of a condition expression. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** `attribute_not_exists(pk)`: the condition of every create. */
export const notExists: Expr = { expression: 'attribute_not_exists(pk)' };
/** `attribute_exists(pk)`: an update or delete of an item that must be there. */
export const exists: Expr = { expression: 'attribute_exists(pk)' };

/**
 * Declares an entity. `T` is given, the rest inferred: `entity<Voucher>()({ name, key, ... })`.
 */
export function entity<T extends object>() {
  return <K, I extends Indexes<T> = Record<never, never>>(def: EntityDef<T, K, I>): Entity<T, K, I> => {
    const indexes = (def.indexes ?? {}) as I;
    const item = (t: T): Item => {
      const out: Item = { ...def.key(t as unknown as K), entity: def.name };
      for (const [name, index] of Object.entries(indexes) as [IndexName, IndexDef<T>][]) {
        if (index.when && !index.when(t)) continue;
        out[`${name}pk`] = index.pk(t);
        out[`${name}sk`] = index.sk(t);
      }
      Object.assign(out, t);
      const ttl = def.ttl?.(t);
      if (ttl !== undefined) out.ttl = ttl;
      return out;
    };
    const parse = (stored: Item): T => {
      const out: Item = { ...stored };
      for (const k of RESERVED) delete out[k];
      return out as T;
    };
    const condition = (c?: Expr) =>
      c ? { ConditionExpression: c.expression } : ({} as { ConditionExpression?: string });
    const update = (k: K, u: Expr, c?: Expr) => ({
      TableName: tableName(),
      Key: def.key(k),
      UpdateExpression: u.expression,
      ...condition(c),
      ...merged(u, c),
    });
    const refused = async (send: () => Promise<unknown>): Promise<boolean> => {
      try {
        await send();
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    };
    const indexPk = (index: IndexName, attrs: unknown): string => {
      const declared = (indexes as Indexes<T>)[index];
      if (!declared) throw new Error(`${def.name} has no index ${index}`);
      return declared.pk(attrs as T);
    };
    const query = async (spec: QuerySpec) => {
      const page = await queryPage(spec);
      return { items: page.items.map(parse), ...(page.next ? { next: page.next } : {}) };
    };
    return {
      name: def.name,
      indexes,
      key: def.key,
      queryIndex: (index, attrs, spec = {}) => query({ ...spec, index, pk: indexPk(index, attrs) }),
      queryIndexAll: async (index, attrs, spec = {}) =>
        (await queryAll({ ...spec, index, pk: indexPk(index, attrs) })).map(parse),
      item,
      parse,
      async get(k, options = {}) {
        const out = await ddb().send(
          new GetCommand({ TableName: tableName(), Key: def.key(k), ConsistentRead: options.consistent }),
        );
        return out.Item ? parse(out.Item) : undefined;
      },
      put: (t, c) =>
        refused(() =>
          ddb().send(
            new PutCommand({ TableName: tableName(), Item: item(t), ...condition(c), ...merged(c) }),
          ),
        ),
      update: (k, u, c) => refused(() => ddb().send(new UpdateCommand(update(k, u, c)))),
      async updateReturning(k, u, c) {
        try {
          const out = await ddb().send(new UpdateCommand({ ...update(k, u, c), ReturnValues: 'ALL_NEW' }));
          return out.Attributes ? parse(out.Attributes) : undefined;
        } catch (error) {
          if (isConditionFailure(error)) return undefined;
          throw error;
        }
      },
      delete: (k, c) =>
        refused(() =>
          ddb().send(
            new DeleteCommand({ TableName: tableName(), Key: def.key(k), ...condition(c), ...merged(c) }),
          ),
        ),
      query,
      queryAll: async (spec) => (await queryAll(spec)).map(parse),
      tx: {
        put: (t, c) => ({ Put: { TableName: tableName(), Item: item(t), ...condition(c), ...merged(c) } }),
        create: (t) => ({
          Put: { TableName: tableName(), Item: item(t), ConditionExpression: notExists.expression },
        }),
        update: (k, u, c) => ({ Update: update(k, u, c) }),
        delete: (k, c) => ({
          Delete: { TableName: tableName(), Key: def.key(k), ...condition(c), ...merged(c) },
        }),
        check: (k, c) => ({
          ConditionCheck: {
            TableName: tableName(),
            Key: def.key(k),
            ConditionExpression: c.expression,
            ...merged(c),
          },
        }),
      },
    };
  };
}

/**
 * A transaction DynamoDB cancelled, told by item NAME: `failed('nas')` is true when the item
 * named `nas` failed its condition. Adding an item to a transaction never shifts the blame.
 */
export class TransactionCancelled<N extends string = string> extends Error {
  readonly reasons: Readonly<Record<N, string>>;

  constructor(reasons: Record<N, string>, cause: unknown) {
    super(
      `transaction cancelled: ${Object.entries(reasons)
        .filter(([, r]) => r !== 'None')
        .map(([n, r]) => `${n}=${r}`)
        .join(', ')}`,
      { cause },
    );
    this.name = 'TransactionCancelled';
    this.reasons = reasons;
  }

  /** The named item's condition failed. */
  failed(name: N): boolean {
    return this.reasons[name] === 'ConditionalCheckFailed';
  }

  /** The names of the items whose condition failed. */
  get failedItems(): N[] {
    return (Object.keys(this.reasons) as N[]).filter((n) => this.failed(n));
  }

  /** Another transaction held one of the items: reading again and retrying may succeed. */
  get conflict(): boolean {
    return Object.values<string>(this.reasons).includes('TransactionConflict');
  }
}

/**
 * Runs a TransactWriteItems whose items are named. A cancellation is thrown as
 * `TransactionCancelled` with each name's reason; any other error as it came.
 */
export async function transact<N extends string>(items: Record<N, TxItem>): Promise<void> {
  const entries = Object.entries(items) as [N, TxItem][];
  try {
    await ddb().send(new TransactWriteCommand({ TransactItems: entries.map(([, item]) => item) }));
  } catch (error) {
    if ((error as { name?: string } | null)?.name !== 'TransactionCanceledException') throw error;
    const codes = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    const reasons = Object.fromEntries(
      entries.map(([name], i) => [name, codes[i]?.Code ?? 'None']),
    ) as Record<N, string>;
    throw new TransactionCancelled(reasons, error);
  }
}

/** The cancellation of `transact`, or undefined for any other error (which the caller rethrows). */
export function cancelled<N extends string>(error: unknown): TransactionCancelled<N> | undefined {
  return error instanceof TransactionCancelled ? (error as TransactionCancelled<N>) : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a read may name an entity of any item and key type
type AnyEntity = Entity<any, any, any>;
type Read = readonly [AnyEntity, unknown];
type ReadResults<R extends readonly Read[]> = {
  [I in keyof R]: R[I][0] extends Entity<infer T, infer _K, infer _I> ? T | undefined : never;
};

/**
 * Reads items of several entities in one BatchGetItem, each parsed by its entity, in the order
 * asked. Unprocessed keys (DynamoDB throttling) fail the call as a throttle, so it is retried.
 */
export async function batchGet<const R extends readonly Read[]>(
  reads: R,
  options: { consistent?: boolean } = {},
): Promise<ReadResults<R>> {
  const keys = reads.map(([e, k]) => e.key(k));
  const out = await ddb().send(
    new BatchGetCommand({
      RequestItems: { [tableName()]: { Keys: keys, ConsistentRead: options.consistent } },
    }),
  );
  if (Object.keys(out.UnprocessedKeys ?? {}).length) {
    const error = new Error('BatchGetItem left keys unprocessed');
    error.name = 'ThrottlingException';
    throw error;
  }
  const items = out.Responses?.[tableName()] ?? [];
  return reads.map(([e], i) => {
    const found = items.find((item) => item.pk === keys[i]?.pk && item.sk === keys[i]?.sk);
    return found ? e.parse(found) : undefined;
  }) as ReadResults<R>;
}
