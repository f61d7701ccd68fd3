// THE entity helper: each entity declared once (keys, indexes, TTL) and read, written, queried and transacted through it.

import {
  type AttributeValue,
  BatchGetItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemClient, tableName } from '../core/ddb.js';
import {
  type Conditions,
  conditionsOf,
  type Expr,
  isConditionFailure,
  merged,
  notExists,
  type TxItem,
  type Update,
  type Upsert,
} from './expressions.js';
import {
  compiled,
  gsis,
  type IndexDef,
  type IndexOf,
  type Item,
  type KeyTemplate,
  type PrimaryKey,
  RESERVED,
} from './keys.js';
import { type QuerySpec, queryAll, queryCount, queryPage } from './query.js';
import { TABLE } from './table.js';
import { updateExpression } from './update-expression.js';
import { wire, wireInput } from './wire.js';

// The store helper's parts, for the store modules: one import.
export {
  absentOrBelow,
  allOf,
  anyOf,
  type Expr,
  exists,
  notExists,
  statusIs,
  type TxItem,
  type Update,
} from './expressions.js';
export type { Item } from './keys.js';
export { cancelled, transact } from './transact.js';

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

/** An entity's keys and lifetime; its name (the `entity` attribute of its items) is `entity`'s argument. */
interface EntityDef<T, K, I extends Indexes<T> = Indexes<T>> {
  key: (k: K) => PrimaryKey;
  /** Its indexes by access pattern. */
  indexes?: I;
  /**
   * Epoch seconds after which DynamoDB may delete the item (cleanup only: code checks expiry),
   * written with every put and upsert; undefined: kept.
   */
  ttl?: (t: T) => number | undefined;
  /**
   * The attributes `ttl` reads: an update that sets or removes one writes the TTL again (or
   * removes it), from what the update sets, the key and `read` (an attribute in none of them
   * is taken as absent). The TTL is declared here, never written by hand.
   */
  ttlFrom?: readonly (keyof T & string)[];
}

type Indexes<T> = Record<string, IndexDef<T> | KeyTemplate<T>>;

/** The query of one index partition: its partition value comes from the attributes given. */
type IndexQuery<T, I, N extends keyof I> =
  IndexOf<I[N], T> extends { pk: (t: infer A) => string } ? A : never;

interface Entity<T, K, I extends Indexes<T> = Indexes<T>> {
  readonly name: string;
  /** The index declarations as key functions, with the narrow attribute types each needs. */
  readonly indexes: { readonly [N in keyof I]: IndexOf<I[N], T> };
  key(k: K): PrimaryKey;
  /** Queries one index partition, given the attributes its partition key is built from. */
  queryIndex<N extends keyof I & string>(
    index: N,
    attrs: IndexQuery<T, I, N>,
    spec?: Omit<QuerySpec, 'index' | 'pk'>,
  ): Promise<{ items: T[]; next?: Item }>;
  /** Every item of one index partition. */
  queryIndexAll<N extends keyof I & string>(
    index: N,
    attrs: IndexQuery<T, I, N>,
    spec?: Omit<QuerySpec, 'index' | 'pk' | 'start'>,
  ): Promise<T[]>;
  /** How many items of one index partition match (`Select: COUNT`, every page). */
  countIndex<N extends keyof I & string>(
    index: N,
    attrs: IndexQuery<T, I, N>,
    spec?: Omit<QuerySpec, 'index' | 'pk' | 'start' | 'limit'>,
  ): Promise<number>;
  /** The whole stored item of `t`: keys, index keys, `entity`, TTL and the attributes. */
  item(t: T): Item;
  /** A stored item back to the entity: key and bookkeeping attributes removed. */
  parse(item: Item): T;
  get(k: K, options?: { consistent?: boolean }): Promise<T | undefined>;
  /** Puts the item; with `condition`, false when DynamoDB refused it. */
  put(t: T, condition?: Expr): Promise<boolean>;
  /** Updates an item (its index keys follow); false when the condition refused it. */
  update(k: K, update: Update<T>, condition?: Expr): Promise<boolean>;
  /** `update`, answering the item after it (undefined when the condition refused it). */
  updateReturning(k: K, update: Update<T>, condition?: Expr): Promise<T | undefined>;
  /**
   * `update` with no read before it: when the condition refuses it, DynamoDB answers the item
   * as stored in the same call (`ReturnValuesOnConditionCheckFailure`; undefined: none).
   */
  updateOrRead(
    k: K,
    update: Update<T>,
    condition: Expr,
  ): Promise<{ updated: true } | { updated: false; read?: T }>;
  /** Conditions on its attributes (see `Conditions`). */
  readonly where: Conditions<T>;
  /** An update that makes the whole item when there is none (see `Upsert`); false when the condition refused it. */
  upsert(k: K, upsert: Upsert<T>, condition?: Expr): Promise<boolean>;
  /** `upsert`, answering the item after it (undefined when the condition refused it). */
  upsertReturning(k: K, upsert: Upsert<T>, condition?: Expr): Promise<T | undefined>;
  /** Deletes an item; false when the condition refused it. */
  delete(k: K, condition?: Expr): Promise<boolean>;
  /** A query of the primary key; an index is queried by its name (`queryIndex`). */
  query(spec: Omit<QuerySpec, 'index'>): Promise<{ items: T[]; next?: Item }>;
  queryAll(spec: Omit<QuerySpec, 'index' | 'start'>): Promise<T[]>;
  tx: {
    put(t: T, condition?: Expr): TxItem;
    /** Puts only while no item has this key. */
    create(t: T): TxItem;
    /** An update for a transaction: index keys follow as in `update`. */
    update(k: K, update: Update<T>, condition?: Expr): TxItem;
    /** An upsert for a transaction (see `Upsert`). */
    upsert(k: K, upsert: Upsert<T>, condition?: Expr): TxItem;
    delete(k: K, condition?: Expr): TxItem;
    check(k: K, condition: Expr): TxItem;
  };
}

/**
 * Declares an entity by the name its items carry (their `entity` attribute). `T` is given, the
 * rest inferred: `entity<Voucher>('voucher')({ key, indexes, ttl })`.
 */
export function entity<T extends object>(name: string) {
  return <K, const I extends Indexes<T> = Record<never, never>>(
    spec: EntityDef<T, K, I>,
  ): Entity<T, K, I> => {
    const def = { ...spec, name };
    const declared = Object.entries(def.indexes ?? {}).map(
      ([name, index]) => [name, compiled(index as IndexDef<T> | KeyTemplate<T>, def.name)] as const,
    );
    const indexes = Object.fromEntries(declared) as unknown as Entity<T, K, I>['indexes'];
    const taken = new Set(declared.map(([, index]) => index.gsi));
    if (taken.size < declared.length) throw new Error(`${def.name}: two access patterns on one GSI`);
    const indexed = new Set(declared.flatMap(([, index]) => index.composite));
    const item = (t: T): Item => {
      const out: Item = { ...def.key(t as unknown as K), entity: def.name };
      for (const [, index] of declared) {
        if (index.when && !index.when(t)) continue;
        out[gsis[index.gsi].partitionKey] = index.pk(t);
        out[gsis[index.gsi].sortKey] = index.sk(t);
      }
      Object.assign(out, t);
      const ttl = def.ttl?.(t);
      if (ttl !== undefined) out[TABLE.ttlAttribute] = ttl;
      return out;
    };
    const parse = (stored: Item): T => {
      const out: Item = { ...stored };
      for (const k of RESERVED) delete out[k];
      return out as T;
    };
    const condition = (c?: Expr) =>
      c ? { ConditionExpression: c.expression } : ({} as { ConditionExpression?: string });

    const updateExpr = (k: K, u: Upsert<T>, upsert = false): Expr =>
      updateExpression(def, declared, indexed, k as Item, u, upsert);
    const update = (k: K, u: Upsert<T>, c?: Expr, upsert = false) => {
      const e = updateExpr(k, u, upsert);
      return {
        TableName: tableName(),
        Key: def.key(k),
        UpdateExpression: e.expression,
        ...condition(c),
        ...merged(e, c),
      };
    };
    const refused = async (send: () => Promise<unknown>): Promise<boolean> => {
      try {
        await send();
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    };
    const returning = async (input: ReturnType<typeof update>): Promise<T | undefined> => {
      try {
        const out = await itemClient().send(
          new UpdateItemCommand(wireInput({ ...input, ReturnValues: 'ALL_NEW' })),
        );
        return out.Attributes ? parse(unmarshall(out.Attributes)) : undefined;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    };
    const onIndex = (name: string, attrs: unknown) => {
      const index = (indexes as Record<string, IndexDef<T>>)[name];
      if (!index) throw new Error(`${def.name} has no index ${name}`);
      return { index: index.gsi, pk: index.pk(attrs as T) };
    };
    const query = async (spec: QuerySpec) => {
      const page = await queryPage(spec);
      return { items: page.items.map(parse), ...(page.next ? { next: page.next } : {}) };
    };
    return {
      name: def.name,
      indexes,
      key: def.key,
      queryIndex: (name, attrs, spec = {}) => query({ ...spec, ...onIndex(name, attrs) }),
      queryIndexAll: async (name, attrs, spec = {}) =>
        (await queryAll({ ...spec, ...onIndex(name, attrs) })).map(parse),
      countIndex: (name, attrs, spec = {}) => queryCount({ ...spec, ...onIndex(name, attrs) }),
      item,
      parse,
      async get(k, options = {}) {
        const out = await itemClient().send(
          new GetItemCommand({
            TableName: tableName(),
            Key: wire(def.key(k)),
            ConsistentRead: options.consistent,
          }),
        );
        return out.Item ? parse(unmarshall(out.Item)) : undefined;
      },
      put: (t, c) =>
        refused(() =>
          itemClient().send(
            new PutItemCommand(
              wireInput({ TableName: tableName(), Item: item(t), ...condition(c), ...merged(c) }),
            ),
          ),
        ),
      update: (k, u, c) =>
        refused(() => itemClient().send(new UpdateItemCommand(wireInput(update(k, u, c))))),
      updateReturning: (k, u, c) => returning(update(k, u, c)),
      async updateOrRead(k, u, c) {
        try {
          await itemClient().send(
            new UpdateItemCommand(
              wireInput({ ...update(k, u, c), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
            ),
          );
          return { updated: true };
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          const stored = (error as { Item?: Record<string, AttributeValue> }).Item;
          return { updated: false, ...(stored ? { read: parse(unmarshall(stored)) } : {}) };
        }
      },
      where: conditionsOf<T>(),
      upsert: (k, u, c) =>
        refused(() => itemClient().send(new UpdateItemCommand(wireInput(update(k, u, c, true))))),
      upsertReturning: (k, u, c) => returning(update(k, u, c, true)),
      delete: (k, c) =>
        refused(() =>
          itemClient().send(
            new DeleteItemCommand(
              wireInput({ TableName: tableName(), Key: def.key(k), ...condition(c), ...merged(c) }),
            ),
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
        upsert: (k, u, c) => ({ Update: update(k, u, c, true) }),
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
  const out = await itemClient().send(
    new BatchGetItemCommand({
      RequestItems: { [tableName()]: { Keys: keys.map(wire), ConsistentRead: options.consistent } },
    }),
  );
  if (Object.keys(out.UnprocessedKeys ?? {}).length) {
    const error = new Error('BatchGetItem left keys unprocessed');
    error.name = 'ThrottlingException';
    throw error;
  }
  const items = (out.Responses?.[tableName()] ?? []).map((item) => unmarshall(item));
  return reads.map(([e], i) => {
    const found = items.find((item) => item.pk === keys[i]?.pk && item.sk === keys[i]?.sk);
    return found ? e.parse(found) : undefined;
  }) as ReadResults<R>;
}
