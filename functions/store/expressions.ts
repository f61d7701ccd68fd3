// Condition and update expressions with their names and values, merged, and the helper's named conditions.

import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Item } from './keys.js';

/** A condition or update expression with its names and values. */
export interface Expr {
  expression: string;
  names?: Record<string, string>;
  values?: Item;
}

/**
 * An update of an entity's item, said with the entity's attributes: the helper writes the
 * expression, its names and values, and the index keys and TTL the attributes feed (see
 * `IndexDef`, `EntityDef.ttl`). `expression` holds what these cannot say, in DynamoDB's
 * syntax; it may not write an attribute an index is built from, unless `keepsIndexes` says why
 * no key moves.
 */
export interface Update<T> extends Partial<Expr> {
  /**
   * Attributes set to these values (`undefined`: removed); besides the entity's own, flat
   * attributes named `<what>:<whose>` (a code's `counted:<session>`, a breakdown's `h:<nas_id>`).
   */
  set?: Partial<T> & { readonly [flat: `${string}:${string}`]: unknown };
  remove?: readonly (keyof T & string)[];
  /**
   * Numbers ADDed to these attributes (an absent one starts at the number), or elements to a set
   * attribute. Any name, flat breakdown attributes (`h:<nas_id>`) too: an ADD creates a top-level
   * attribute where one on a map entry needs the map first.
   */
  add?: Readonly<Record<string, number | ReadonlySet<string | number>>>;
  /** Elements taken out of set attributes (DynamoDB's DELETE). */
  drop?: { readonly [K in keyof T]?: ReadonlySet<string | number> };
  /** Attributes set only where the item has none yet (`if_not_exists`): a first time kept. */
  ifAbsent?: Partial<T>;
  /** Items appended to list attributes (an absent list starts empty). */
  append?: { readonly [K in keyof T]?: T[K] };
  /**
   * An attribute set to another's value plus a number, the other read as 0 when absent:
   * `sum: { total_bytes: ['base_bytes', n] }`. Computed by DynamoDB, with no read before.
   */
  sum?: { readonly [K in keyof T]?: readonly [keyof T & string, number] };
  /**
   * Entries of map attributes: `entries: { devices: { [device]: lease } }` sets one entry
   * (`undefined` removes it) without writing the rest of the map; `{ add: n }` adds to the
   * entry (absent: 0), a negative `n` takes off.
   */
  entries?: { readonly [K in keyof T]?: Readonly<Record<string, unknown>> };
  /**
   * The item as read, when an index this update moves is built from attributes it does not
   * set: an attribute absent from it is absent from the item.
   */
  read?: T;
  /** The update writes an index's attribute in a way that moves no key (said at the call). */
  keepsIndexes?: true;
}

/**
 * An update that makes a whole item when there is none (a counter's first ADD): besides the
 * update, the item's `entity` and, for an entity with a TTL, its TTL from `set` and the key.
 * `set` holds what identifies the item (its key's attributes); `ifAbsent`, attributes written
 * only by the update that creates it.
 */
export type Upsert<T> = Update<T>;

/** An entry's ADD (`entries: { grants: { [device]: { add: -n } } }`). */
export interface EntryAdd {
  add: number;
}
export const isEntryAdd = (v: unknown): v is EntryAdd =>
  typeof v === 'object' &&
  v !== null &&
  Object.keys(v).length === 1 &&
  typeof (v as EntryAdd).add === 'number';

/** One item of a TransactWriteItems, in the document client's form (marshalled when sent). */
export type TxItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const names = (e?: Expr) => e?.names;
const values = (e?: Expr) => e?.values;

/** Merges the names and values of several expressions (undefined when none has any). */
export function merged(...exprs: (Expr | undefined)[]) {
  const n = Object.assign({}, ...exprs.map(names));
  const v = Object.assign({}, ...exprs.map(values));
  return {
    ExpressionAttributeNames: Object.keys(n).length ? n : undefined,
    ExpressionAttributeValues: Object.keys(v).length ? v : undefined,
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
 * `attr` absent or below `value` (`<=` with `orEqual`): a mark that only moves forward (the
 * newest report, the last check), or a counter that stops at a limit.
 */
export const absentOrBelow = (attr: string, value: unknown, orEqual = false): Expr => ({
  expression: `attribute_not_exists(#below) OR #below ${orEqual ? '<=' : '<'} :below`,
  names: { '#below': attr },
  values: { ':below': value },
});
/**
 * All of these conditions. A placeholder two of them share must stand for the same name and
 * value (the conditions of `where` name theirs after the attribute and the comparison): one
 * that would stand for two values is a fault, thrown here.
 */
export function allOf(...exprs: Expr[]): Expr {
  return joined(exprs, 'AND');
}

/** Any of these conditions (placeholders as in `allOf`). */
export function anyOf(...exprs: Expr[]): Expr {
  return joined(exprs, 'OR');
}

function joined(exprs: Expr[], op: 'AND' | 'OR'): Expr {
  const names: Record<string, string> = {};
  const values: Item = {};
  for (const e of exprs) {
    for (const [k, v] of Object.entries(e.names ?? {})) {
      if (k in names && names[k] !== v) throw new Error(`condition placeholder ${k} names two attributes`);
      names[k] = v;
    }
    for (const [k, v] of Object.entries(e.values ?? {})) {
      if (k in values && JSON.stringify(values[k]) !== JSON.stringify(v))
        throw new Error(`condition placeholder ${k} holds two values`);
      values[k] = v;
    }
  }
  return {
    expression:
      exprs.length === 1
        ? (exprs[0] as Expr).expression
        : exprs.map((e) => `(${e.expression})`).join(` ${op} `),
    ...(Object.keys(names).length ? { names } : {}),
    ...(Object.keys(values).length ? { values } : {}),
  };
}

/** A name's placeholder: the name itself when it is plain, else its hex (never two names one placeholder). */
const token = (name: string) =>
  /^[A-Za-z0-9_]+$/.test(name) ? `_${name}` : `x_${Buffer.from(name).toString('hex')}`;

type Comparison = '=' | '<>' | '<' | '<=' | '>' | '>=';
const OPS: Record<Comparison, string> = {
  '=': 'eq',
  '<>': 'ne',
  '<': 'lt',
  '<=': 'le',
  '>': 'gt',
  '>=': 'ge',
};

/** An attribute (or a flat one, `<what>:<whose>`), or an entry of a map attribute (`['devices', key]`). */
type Path<T> = (keyof T & string) | `${string}:${string}` | readonly [keyof T & string, string];

function pathOf(p: string | readonly [string, string]): {
  expression: string;
  names: Record<string, string>;
  id: string;
} {
  const [attr, entry] = typeof p === 'string' ? [p, undefined] : p;
  const a = `#w${token(attr)}`;
  if (entry === undefined) return { expression: a, names: { [a]: attr }, id: token(attr) };
  const e = `#we${token(entry)}`;
  return { expression: `${a}.${e}`, names: { [a]: attr, [e]: entry }, id: `${token(attr)}e${token(entry)}` };
}

/**
 * Conditions on an entity's attributes, typed by it (each entity's `where`), as ElectroDB's
 * `where` says them: `Session.where.is('status', 'open')`, combined with `allOf` / `anyOf`.
 * A value's placeholder is named after its attribute and comparison.
 */
export interface Conditions<T> {
  is<K extends keyof T & string>(attr: K, value: NonNullable<T[K]>): Expr;
  isNot<K extends keyof T & string>(attr: K, value: NonNullable<T[K]>): Expr;
  /** A comparison of an attribute, or of a map's entry, with a value. */
  compare(path: Path<T>, op: Comparison, value: unknown): Expr;
  /** The attribute (or map entry) is there / is not. */
  has(path: Path<T>): Expr;
  lacks(path: Path<T>): Expr;
  /** The attribute is one of these values. */
  oneOf<K extends keyof T & string>(attr: K, values: readonly NonNullable<T[K]>[]): Expr;
  /** The set or list attribute holds / does not hold the value. */
  contains(attr: keyof T & string, value: unknown): Expr;
  lacksValue(attr: keyof T & string, value: unknown): Expr;
  /** The attribute is absent, or `cond` holds: a mark that only moves forward, a first time. */
  lacksOr(attr: keyof T & string, cond: Expr): Expr;
}

const conditions: Conditions<Record<string, unknown>> = {
  is: (attr, value) => conditions.compare(attr, '=', value),
  isNot: (attr, value) => conditions.compare(attr, '<>', value),
  compare(path, op, value) {
    const p = pathOf(path);
    const v = `:w${p.id}_${OPS[op]}`;
    return { expression: `${p.expression} ${op} ${v}`, names: p.names, values: { [v]: value } };
  },
  has(path) {
    const p = pathOf(path);
    return { expression: `attribute_exists(${p.expression})`, names: p.names };
  },
  lacks(path) {
    const p = pathOf(path);
    return { expression: `attribute_not_exists(${p.expression})`, names: p.names };
  },
  oneOf(attr, values) {
    const p = pathOf(attr);
    const vs = values.map((_, i) => `:w${p.id}_in${i}`);
    return {
      expression: `${p.expression} IN (${vs.join(', ')})`,
      names: p.names,
      values: Object.fromEntries(vs.map((v, i) => [v, values[i]])),
    };
  },
  contains(attr, value) {
    const p = pathOf(attr);
    const v = `:w${p.id}_has`;
    return { expression: `contains(${p.expression}, ${v})`, names: p.names, values: { [v]: value } };
  },
  lacksValue(attr, value) {
    const c = conditions.contains(attr, value);
    return { ...c, expression: `NOT ${c.expression}` };
  },
  lacksOr: (attr, cond) => anyOf(conditions.lacks(attr), cond),
};

/** The conditions of an entity's items (`Entity.where`). */
export const conditionsOf = <T>(): Conditions<T> => conditions as unknown as Conditions<T>;

/** The item's `status` is this one (a transition's condition). */
export const statusIs = (status: string): Expr => ({
  expression: '#status = :status_is',
  names: { '#status': 'status' },
  values: { ':status_is': status },
});

export const ACTIONS = ['SET', 'REMOVE', 'ADD', 'DELETE'] as const;
export type Action = (typeof ACTIONS)[number];

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
