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
/** All of these conditions (their names and values must not clash). */
export function allOf(...exprs: Expr[]): Expr {
  const { ExpressionAttributeNames: names, ExpressionAttributeValues: values } = merged(...exprs);
  return {
    expression: exprs.map((e) => `(${e.expression})`).join(' AND '),
    ...(names && { names }),
    ...(values && { values }),
  };
}
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
