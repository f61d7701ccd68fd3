// The store helper's update expressions built from what a module says: sets, removes, sums, appends, TTL.

import { ACTIONS, actionsOf, type Expr, isEntryAdd, targetOf, type Upsert } from './expressions.js';
import { gsis, INDEX_KEYS, type IndexDef, type Item } from './keys.js';
import { TABLE } from './table.js';

/**
 * The update expression of an entity's update (see `Update`), with the index keys and the TTL it
 * moves. An index whose composite attributes the update touches gets its keys rewritten, or
 * removed when `when` turns false; what the key functions read must be set, in the key, or in
 * `read` (else it throws: a fault). Placeholders are `#u<n>` / `:u<n>`.
 */
export function updateExpression<T>(
  def: { name: string; ttl?: (t: T) => number | undefined; ttlFrom?: readonly string[] },
  declared: readonly (readonly [string, IndexDef<T>])[],
  indexed: ReadonlySet<string>,
  key: Item,
  u: Upsert<T>,
  upsert: boolean,
): Expr {
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
  const known: Item = { ...u.read, ...key };
  const removed = [...(u.remove ?? [])] as string[];
  let n = 0;
  const name = (attr: string) => {
    names[`#u${n}`] = attr;
    return `#u${n++}`;
  };
  const value = (v: unknown) => {
    values[`:u${n}`] = v;
    return `:u${n++}`;
  };
  const setClause = (attr: string, v: unknown, ifAbsent = false) => {
    const a = name(attr);
    actions.SET.push(ifAbsent ? `${a} = if_not_exists(${a}, ${value(v)})` : `${a} = ${value(v)}`);
  };
  // What these write moves no index key by itself: an index's attribute is refused.
  const plain = (attr: string, how: string) => {
    if (!u.keepsIndexes && (indexed.has(attr as keyof T & string) || INDEX_KEYS.includes(attr)))
      throw new Error(`${def.name}: ${how} ${attr}, an index's attribute`);
    if (attr === 'entity')
      throw new Error(`${def.name}: entity is written by the helper (upsert), not by hand`);
  };
  for (const [attr, by] of Object.entries(u.add ?? {})) {
    plain(attr, 'ADD to');
    actions.ADD.push(`${name(attr)} ${value(by)}`);
  }
  for (const [attr, elements] of Object.entries(u.drop ?? {})) {
    plain(attr, 'DELETE from');
    actions.DELETE.push(`${name(attr)} ${value(elements)}`);
  }
  if (upsert) setClause('entity', def.name);
  for (const [attr, v] of Object.entries(u.ifAbsent ?? {})) {
    // On an upsert the item is made with it: an index's attribute is known from it then.
    if (!upsert) plain(attr, 'if_not_exists on');
    setClause(attr, v, true);
  }
  for (const [attr, items] of Object.entries(u.append ?? {})) {
    plain(attr, 'append to');
    const a = name(attr);
    actions.SET.push(`${a} = list_append(if_not_exists(${a}, ${value([])}), ${value(items)})`);
  }
  for (const [attr, [from, plus]] of Object.entries(u.sum ?? {}) as [string, [string, number]][]) {
    plain(attr, 'sum into');
    actions.SET.push(`${name(attr)} = if_not_exists(${name(from)}, ${value(0)}) + ${value(plus)}`);
  }
  for (const [attr, entries] of Object.entries(u.entries ?? {}) as [string, Record<string, unknown>][]) {
    plain(attr, 'an entry of');
    const a = name(attr);
    for (const [key, v] of Object.entries(entries)) {
      const e = `${a}.${name(key)}`;
      if (v === undefined) actions.REMOVE.push(e);
      else if (isEntryAdd(v)) actions.SET.push(`${e} = if_not_exists(${e}, ${value(0)}) + ${value(v.add)}`);
      else actions.SET.push(`${e} = ${value(v)}`);
    }
  }
  for (const [attr, v] of Object.entries(u.set ?? {})) {
    if (v === undefined) removed.push(attr);
    else {
      known[attr] = v;
      setClause(attr, v);
    }
  }
  for (const attr of removed) {
    known[attr] = undefined;
    actions.REMOVE.push(name(attr));
  }
  // The TTL: an upsert writes it from what it knows of the item; any update whose attributes it
  // is computed from (`ttlFrom`) writes it again, or removes it, whatever else the update says.
  const ttlMoves = def.ttlFrom?.some(
    (a) => a in (u.set ?? {}) || removed.includes(a) || a in (u.ifAbsent ?? {}),
  );
  if (def.ttl && (upsert || ttlMoves)) {
    const ttl = def.ttl({ ...u.ifAbsent, ...known } as T);
    if (ttl !== undefined) setClause(TABLE.ttlAttribute, ttl);
    else if (ttlMoves) actions.REMOVE.push(name(TABLE.ttlAttribute));
  }
  // An update that says no key moves (`keepsIndexes`, with its reason at the call) moves none.
  const touched = new Set(u.keepsIndexes ? [] : [...Object.keys(u.set ?? {}), ...removed]);
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
}
