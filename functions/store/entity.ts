// THE entity helper: each entity declared once (keys, indexes, TTL) and read, written, queried and transacted through it.

import {
  BatchGetItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemClient, tableName } from '../core/ddb.js';
import {
  ACTIONS,
  actionsOf,
  type Expr,
  isConditionFailure,
  merged,
  notExists,
  type TxItem,
  targetOf,
  type Update,
  type Upsert,
} from './expressions.js';
import {
  compiled,
  gsis,
  INDEX_KEYS,
  type IndexDef,
  type IndexOf,
  type Item,
  type KeyTemplate,
  type PrimaryKey,
  RESERVED,
} from './keys.js';
import { type QuerySpec, queryAll, queryCount, queryPage } from './query.js';
import { TABLE } from './table.js';
import { wire, wireInput } from './wire.js';

// The store helper's parts, for the store modules: one import.
export {
  absentOrBelow,
  allOf,
  type Expr,
  exists,
  notExists,
  statusIs,
  type TxItem,
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
  /** Epoch seconds after which DynamoDB may delete the item (cleanup only: code checks expiry). */
  ttl?: (t: T) => number | undefined;
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

    /**
     * The update expression with the index keys it moves. An index whose composite attributes
     * the update touches gets its keys rewritten, or removed when `when` turns false; what the
     * key functions read must be set, in the key, or in `read` (else it throws: a fault).
     */
    const updateExpr = (k: K, u: Upsert<T>, upsert = false): Expr => {
      const actions = actionsOf(u.expression);
      const names: Record<string, string> = { ...u.names };
      const values: Item = { ...u.values };
      for (const action of ACTIONS) {
        for (const clause of actions[action]) {
          const target = targetOf(clause, u.names);
          if (target === 'entity')
            throw new Error(`${def.name}: entity is written by the helper (upsert), not by hand`);
          if (u.keepsIndexes) continue;
          if (indexed.has(target as keyof T & string) || INDEX_KEYS.includes(target)) {
            throw new Error(`${def.name}: write ${target} through set/remove, so that its index keys follow`);
          }
        }
      }
      const known: Item = { ...u.read, ...(k as Item) };
      const removed = [...(u.remove ?? [])] as string[];
      let n = 0;
      const setClause = (attr: string, value: unknown, ifAbsent = false) => {
        names[`#u${n}`] = attr;
        values[`:u${n}`] = value;
        actions.SET.push(ifAbsent ? `#u${n} = if_not_exists(#u${n}, :u${n})` : `#u${n} = :u${n}`);
        n++;
      };
      for (const [attr, by] of Object.entries(u.add ?? {})) {
        if (indexed.has(attr as keyof T & string))
          throw new Error(`${def.name}: ADD to ${attr}, an index's attribute`);
        names[`#u${n}`] = attr;
        values[`:u${n}`] = by;
        actions.ADD.push(`#u${n} :u${n}`);
        n++;
      }
      if (upsert) {
        setClause('entity', def.name);
        for (const [attr, value] of Object.entries(u.ifAbsent ?? {})) setClause(attr, value, true);
        const ttl = def.ttl?.({ ...u.ifAbsent, ...(k as Item), ...u.set } as T);
        if (ttl !== undefined) setClause(TABLE.ttlAttribute, ttl);
      }
      for (const [attr, value] of Object.entries(u.set ?? {})) {
        if (value === undefined) removed.push(attr);
        else {
          known[attr] = value;
          setClause(attr, value);
        }
      }
      for (const attr of removed) {
        known[attr] = undefined;
        names[`#u${n}`] = attr;
        actions.REMOVE.push(`#u${n++}`);
      }
      const touched = new Set([...Object.keys(u.set ?? {}), ...removed]);
      // Reading an attribute the update neither sets nor was given is a fault, not `undefined`
      // (built only for an update that moves an index: most move none).
      let proxy: T | undefined;
      const viewOf = () =>
        (proxy ??= new Proxy(known, {
          get: (o, a) => {
            if (typeof a === 'string' && !u.read && !(a in o)) {
              throw new Error(`${def.name}: this update moves an index built from ${a}: set it or give read`);
            }
            return o[a as string];
          },
        }) as T);
      for (const [, index] of declared) {
        if (!index.composite.some((a) => touched.has(a))) continue;
        const view = viewOf();
        const gsi = gsis[index.gsi];
        if (index.when && !index.when(view)) actions.REMOVE.push(gsi.partitionKey, gsi.sortKey);
        else {
          setClause(gsi.partitionKey, index.pk(view));
          setClause(gsi.sortKey, index.sk(view));
        }
      }
      const expression = ACTIONS.filter((a) => actions[a].length)
        .map((a) => `${a} ${actions[a].join(', ')}`)
        .join(' ');
      return { expression, names, values };
    };
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
