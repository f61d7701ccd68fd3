import {
  BatchGetItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { ddb, itemClient, tableName } from '../core/ddb.js';
import { TABLE } from './table.js';

/**
 * Items and keys in DynamoDB's own form, as the document client would marshal them (undefined
 * values left out): the item commands go through `itemClient`, whose middleware is resolved once
 * per command kind (functions/core/ddb.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: marshal's input is any plain object
const wire = (value: Record<string, any>) => marshall(value, { removeUndefinedValues: true });
// biome-ignore lint/suspicious/noExplicitAny: a document client input (Key, Item, ExpressionAttributeValues)
function wireInput<T extends Record<string, any>>(input: T): any {
  return {
    ...input,
    ...(input.Key ? { Key: wire(input.Key) } : {}),
    ...(input.Item ? { Item: wire(input.Item) } : {}),
    ...(input.ExpressionAttributeValues
      ? { ExpressionAttributeValues: wire(input.ExpressionAttributeValues) }
      : {}),
  };
}

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

export type PrimaryKey = { pk: string; sk: string };
/** A GSI of the table (functions/store/table.ts). */
export type GsiName = (typeof TABLE.indexes)[number]['name'];
export type Item = Record<string, unknown>;

const gsis = Object.fromEntries(TABLE.indexes.map((g) => [g.name, g])) as Record<
  GsiName,
  (typeof TABLE.indexes)[number]
>;

/** The attributes that hold index keys: written by this helper only. */
const INDEX_KEYS = TABLE.indexes.flatMap((g) => [g.partitionKey, g.sortKey]) as string[];

/** Key and bookkeeping attributes: never part of an entity's own type. */
const RESERVED: string[] = [TABLE.partitionKey, TABLE.sortKey, 'entity', TABLE.ttlAttribute, ...INDEX_KEYS];

/**
 * An index of an entity, named by its access pattern (`openByNas`): the GSI that carries it,
 * its partition and sort values from (a part of) the entity, and the attributes they are built
 * from. A put writes its keys; an update that sets or removes one of `composite` rewrites them
 * (or removes them, when `when` no longer holds), as ElectroDB's update path does.
 *
 * Most keys are templates, `pk: 'RESELLER#{reseller_id}#AGENTS'`: each `{name}` is the
 * attribute's value (`{name:10}`: a number zero-padded to 10 digits, so that keys sort as the
 * numbers do), and the attributes named are the index's `composite`, derived rather than listed
 * (`KeyTemplate`). A key a template cannot say (a padded number, a status folded into a
 * word, a shard) is a function, with its attributes listed (`IndexDef`).
 */
export interface IndexDef<T> {
  /** The table's GSI that carries this access pattern: the one place the two meet. */
  gsi: GsiName;
  /** Every attribute `pk`, `sk` and `when` read: an update of one of them moves the item. */
  composite: readonly (keyof T & string)[];
  pk: (t: T) => string;
  sk: (t: T) => string;
  /** Sparse index: the item carries this index's keys only while this holds. */
  when?: (t: T) => boolean;
  /**
   * The GSI this pattern was on before it moved: an update that writes this index's keys also
   * removes the item's keys on that GSI (none there: nothing), so an item written before the
   * move leaves the old GSI at its next such update. No other pattern of the entity may be on it.
   */
  movedFrom?: GsiName;
}

/**
 * An index whose keys are templates. `when` may read the attributes they name and those listed
 * in `whenReads` (a sparse index by status): reading another one throws.
 */
export interface KeyTemplate<T> extends Omit<IndexDef<T>, 'composite' | 'pk' | 'sk'> {
  pk: string;
  sk: string;
  whenReads?: readonly (keyof T & string)[];
  /**
   * A sparse index by value: the item carries its keys only while each attribute named holds
   * its value (or one of its values). `{ status: 'open' }` says `when` and `whenReads` at once.
   */
  sparse?: { readonly [A in keyof T]?: T[A] | readonly T[A][] };
}

/** The attributes a key template names: `'A#{x}#{y:10}'` -> `'x' | 'y'`. */
type TemplateAttrs<S extends string> = S extends `${string}{${infer A}}${infer R}`
  ? (A extends `${infer N}:${string}` ? N : A) | TemplateAttrs<R>
  : never;

/** A key function, or the function of a template: given the attributes it names. */
type KeyFn<P, T> = P extends (t: infer A) => string
  ? (t: A) => string
  : P extends string
    ? (t: { [A in TemplateAttrs<P>]: A extends keyof T ? T[A] : never }) => string
    : never;

/** An index as an entity holds it: key functions either way, composite derived for a template. */
export type IndexOf<D, T> = D extends { pk: infer P; sk: infer S }
  ? Omit<D, 'pk' | 'sk' | 'composite'> & {
      pk: KeyFn<P, T>;
      sk: KeyFn<S, T>;
      composite: readonly (keyof T & string)[];
    }
  : never;

/** `{name}` or `{name:width}` of a template, as written. */
const PLACEHOLDER = /\{(\w+)(?::(\d+))?\}/g;

/**
 * A template's key function: a value missing for a name it reads is a fault (a key must never
 * hold `undefined`).
 */
function templateKey(template: string, entity: string): (t: Record<string, unknown>) => string {
  return (t) =>
    template.replace(PLACEHOLDER, (_m, a: string, width?: string) => {
      const v = t[a];
      if (v === undefined || v === null) throw new Error(`${entity}: key ${template} needs ${a}`);
      return width ? String(v).padStart(Number(width), '0') : String(v);
    });
}

/** Both forms of an index as key functions with their composite. */
function compiled<T>(index: IndexDef<T> | KeyTemplate<T>, entity: string): IndexDef<T> {
  if (typeof index.pk !== 'string' || typeof index.sk !== 'string') return index as IndexDef<T>;
  const { whenReads: reads = [], when: given, sparse, ...rest } = index as KeyTemplate<T>;
  const held = Object.entries(sparse ?? {}) as [string, unknown][];
  const whenReads = [...reads, ...held.map(([a]) => a as keyof T & string)];
  const holds = (t: T) =>
    held.every(([a, v]) => {
      const value = (t as Record<string, unknown>)[a];
      return Array.isArray(v) ? v.includes(value) : value === v;
    });
  const when =
    given && held.length ? (t: T) => holds(t) && given(t) : (given ?? (held.length ? holds : undefined));
  const named = [...`${index.pk}|${index.sk}`.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
  const composite = [...new Set([...named, ...whenReads])] as (keyof T & string)[];
  const readable = new Set<string>(composite);
  const guarded = (t: T) =>
    new Proxy(t as object, {
      get: (o, a) => {
        if (typeof a === 'string' && !readable.has(a))
          throw new Error(`${entity}: when reads ${a}, which is neither in its keys nor in whenReads`);
        return (o as Record<string | symbol, unknown>)[a];
      },
    }) as T;
  return {
    ...rest,
    composite,
    pk: templateKey(index.pk, entity) as (t: T) => string,
    sk: templateKey(index.sk, entity) as (t: T) => string,
    ...(when ? { when: (t: T) => when(guarded(t)) } : {}),
  };
}

/** An entity's keys and lifetime; its name (the `entity` attribute of its items) is `entity`'s argument. */
export interface EntityDef<T, K, I extends Indexes<T> = Indexes<T>> {
  key: (k: K) => PrimaryKey;
  /** Its indexes by access pattern. */
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

/**
 * An update of an entity's item. `set` and `remove` name the entity's attributes: the index
 * keys they feed follow (see `IndexDef`). `expression` holds what they cannot say (ADD, a map
 * entry, `if_not_exists`, `list_append`) in DynamoDB's syntax; it may not write an attribute an
 * index is built from, unless `keepsIndexes` says why no key moves.
 */
export interface Update<T> extends Partial<Expr> {
  /** Attributes set to these values (`undefined`: removed). */
  set?: Partial<T>;
  remove?: readonly (keyof T & string)[];
  /**
   * Numbers ADDed to these attributes (an absent one starts at the number). Any name, flat
   * breakdown attributes (`h:<nas_id>`) too: an ADD creates a top-level attribute where one on
   * a map entry needs the map first.
   */
  add?: Readonly<Record<string, number>>;
  /**
   * The item as read, when an index this update moves is built from attributes it does not
   * set: an attribute absent from it is absent from the item.
   */
  read?: T;
  /** The expression writes an index's attribute in a way that moves no key (said at the call). */
  keepsIndexes?: true;
}

/**
 * An update that makes a whole item when there is none (a counter's first ADD): besides the
 * update, the item's `entity` and, for an entity with a TTL, its TTL from `set` and the key.
 * `set` holds what identifies the item (its key's attributes); `ifAbsent`, attributes written
 * only by the update that creates it (`if_not_exists`).
 */
export interface Upsert<T> extends Update<T> {
  ifAbsent?: Partial<T>;
}

/** One item of a TransactWriteItems, in the document client's form (marshalled when sent). */
export type TxItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

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
async function queryPage(spec: QuerySpec): Promise<{ items: Item[]; next?: Item }> {
  const out = await ddb().send(new QueryCommand(queryInput(spec)));
  return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/** Every item a query matches, page after page. */
async function queryAll(spec: Omit<QuerySpec, 'start'>): Promise<Item[]> {
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
async function queryCount(spec: Omit<QuerySpec, 'start'>): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const out = await ddb().send(new QueryCommand({ ...queryInput({ ...spec, start }), Select: 'COUNT' }));
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}

type Indexes<T> = Record<string, IndexDef<T> | KeyTemplate<T>>;

/** The query of one index partition: its partition value comes from the attributes given. */
type IndexQuery<T, I, N extends keyof I> =
  IndexOf<I[N], T> extends { pk: (t: infer A) => string } ? A : never;

export interface Entity<T, K, I extends Indexes<T> = Indexes<T>> {
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

/** True when the error is DynamoDB's refusal of a condition expression. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** `attribute_not_exists(pk)`: the condition of every create. */
export const notExists: Expr = { expression: 'attribute_not_exists(pk)' };
/** `attribute_exists(pk)`: an update or delete of an item that must be there. */
export const exists: Expr = { expression: 'attribute_exists(pk)' };
/** The item's `status` is this one (a transition's condition). */
export const statusIs = (status: string): Expr => ({
  expression: '#status = :status_is',
  names: { '#status': 'status' },
  values: { ':status_is': status },
});

const ACTIONS = ['SET', 'REMOVE', 'ADD', 'DELETE'] as const;
type Action = (typeof ACTIONS)[number];

/**
 * An update expression's actions, each split into its clauses (commas inside a function's
 * parentheses do not split). A keyword is one not part of a name or placeholder (`:add`).
 */
export function actionsOf(expression = ''): Record<Action, string[]> {
  let parsed = parsedActions.get(expression);
  if (!parsed) {
    parsed = parseActions(expression);
    // The expressions are the store's own constants, a few dozen: kept once parsed (every
    // accounting report's counters and codes parse the same ones).
    if (parsedActions.size < 1000) parsedActions.set(expression, parsed);
  }
  // The caller adds clauses to its copy.
  return {
    SET: [...parsed.SET],
    REMOVE: [...parsed.REMOVE],
    ADD: [...parsed.ADD],
    DELETE: [...parsed.DELETE],
  };
}
const parsedActions = new Map<string, Readonly<Record<Action, readonly string[]>>>();

function parseActions(expression: string): Record<Action, string[]> {
  const out: Record<Action, string[]> = { SET: [], REMOVE: [], ADD: [], DELETE: [] };
  const marks = [...expression.matchAll(/(?<![\w:#.])(SET|REMOVE|ADD|DELETE)\s/gi)];
  if (expression.trim() && marks[0]?.index !== expression.search(/\S/)) {
    throw new Error(`update expression does not start with an action: ${expression}`);
  }
  marks.forEach((m, i) => {
    const body = expression.slice((m.index ?? 0) + m[0].length, marks[i + 1]?.index);
    let depth = 0;
    let from = 0;
    const clauses = out[(m[1] as string).toUpperCase() as Action];
    for (let c = 0; c <= body.length; c++) {
      const ch = body[c];
      if (ch === '(') depth++;
      else if (ch === ')') depth--;
      else if ((ch === ',' && depth === 0) || c === body.length) {
        const clause = body.slice(from, c).trim();
        if (clause) clauses.push(clause);
        from = c + 1;
      }
    }
  });
  return out;
}

/** The top-level attribute a clause writes: `a.b = ...`, `#n[0] = ...`, `REMOVE a`, `ADD a :v`. */
export const targetOf = (clause: string, names: Record<string, string> | undefined): string => {
  const path = clause.split(/[\s=.[]/, 1)[0] as string;
  return names?.[path] ?? path;
};

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
    for (const [name, index] of declared)
      if (index.movedFrom && taken.has(index.movedFrom))
        throw new Error(`${def.name}: ${name} moved from ${index.movedFrom}, which another pattern is on`);
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
        if (index.movedFrom)
          actions.REMOVE.push(gsis[index.movedFrom].partitionKey, gsis[index.movedFrom].sortKey);
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
    await itemClient().send(
      new TransactWriteItemsCommand({
        TransactItems: entries.map(([, item]) =>
          Object.fromEntries(
            Object.entries(item).map(([action, input]) => [
              action,
              wireInput(input as Record<string, unknown>),
            ]),
          ),
        ),
      }),
    );
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
