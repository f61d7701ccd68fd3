// Keys: the primary key, the GSIs' key names, and key templates compiled from an entity's declaration.

import { TABLE } from './table.js';

/** Keys: the table's primary key, its GSIs, and the index declarations of an entity (templates or functions). */
export type PrimaryKey = { pk: string; sk: string };
/** A GSI of the table (functions/store/table.ts). */
export type GsiName = (typeof TABLE.indexes)[number]['name'];
export type Item = Record<string, unknown>;

export const gsis = Object.fromEntries(TABLE.indexes.map((g) => [g.name, g])) as Record<
  GsiName,
  (typeof TABLE.indexes)[number]
>;

/** The attributes that hold index keys: written by this helper only. */
export const INDEX_KEYS = TABLE.indexes.flatMap((g) => [g.partitionKey, g.sortKey]) as string[];

/** Key and bookkeeping attributes: never part of an entity's own type. */
export const RESERVED: string[] = [
  TABLE.partitionKey,
  TABLE.sortKey,
  'entity',
  TABLE.ttlAttribute,
  ...INDEX_KEYS,
];

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
export function compiled<T>(index: IndexDef<T> | KeyTemplate<T>, entity: string): IndexDef<T> {
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
