import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { actionsOf, targetOf } from '../../functions/store/expressions.js';
import { TABLE } from '../../functions/store/table.js';

/**
 * Writes per partition key, on the table and on each GSI, from the requests the functions send
 * (a middleware on the shared DynamoDB client): what `npm run loadtest` reports as each key's
 * share of writes.
 *
 * A table write counts once on its item's `pk`. An index write is computed from TABLE.indexes
 * as DynamoDB applies it: the item enters an index (a put on its new index partition), leaves
 * it (a delete on the old one), moves in it (both), or stays with its keys unchanged (a write
 * of its copy when the update changed an attribute the index projects: any for ALL, those
 * listed for INCLUDE, none for KEYS_ONLY). An update names
 * the index keys it sets or removes (the entity helper writes them), so the item's current
 * index keys are kept per item from the writes seen: the ledger must see an item's first write
 * (`paused` lets a seed teach it without counting).
 *
 * Only writes DynamoDB applied count (a refused condition writes nothing); a transaction
 * cancelled because another held one of its items counts a conflict on that item's key.
 */
type Item = Record<string, unknown>;
type IndexKeys = Partial<Record<string, { pk: string; sk: string }>>;

export interface KeyShare {
  key: string;
  writes: number;
  share: number;
}

/** The unmarshalled string of an attribute value (the document client may show either form). */
function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { S?: unknown }).S === 'string')
    return (v as { S: string }).S;
  return undefined;
}

const itemId = (key: Item) => `${str(key[TABLE.partitionKey])}\u0000${str(key[TABLE.sortKey])}`;

/** The index keys an item carries (an index counts only with both its keys). */
function indexKeysOf(item: Item): IndexKeys {
  const out: IndexKeys = {};
  for (const g of TABLE.indexes) {
    const pk = str(item[g.partitionKey]);
    const sk = str(item[g.sortKey]);
    if (pk !== undefined && sk !== undefined) out[g.name] = { pk, sk };
  }
  return out;
}

/** Top-level attributes an update expression sets (to a value placeholder) and removes. */
export function updatedAttributes(
  expression: string,
  names: Record<string, string> = {},
  values: Item = {},
): { set: Record<string, unknown>; removed: string[] } {
  const actions = actionsOf(expression);
  const removed = actions.REMOVE.map((clause) => targetOf(clause, names));
  const set: Record<string, unknown> = {};
  for (const clause of actions.SET) {
    const value = clause.slice(clause.indexOf('=') + 1).trim();
    set[targetOf(clause, names)] = value.startsWith(':') ? values[value] : undefined;
  }
  return { set, removed };
}

export class WriteLedger {
  /** Writes per key: `table <pk>` or `<gsi> <partition>`. */
  readonly writes = new Map<string, number>();
  /** Transaction conflicts per item key (`table <pk>`). */
  readonly conflicts = new Map<string, number>();
  /** While true, writes teach the ledger the items' index keys but are not counted. */
  paused = false;
  private readonly state = new Map<string, IndexKeys>();

  private count(key: string, n = 1): void {
    if (!this.paused) this.writes.set(key, (this.writes.get(key) ?? 0) + n);
  }

  /** One applied write of an item: its table key and what each index sees. */
  private apply(key: Item, next: IndexKeys | undefined, touched?: readonly string[]): void {
    const id = itemId(key);
    const before = this.state.get(id) ?? {};
    this.count(`table ${str(key[TABLE.partitionKey])}`);
    for (const g of TABLE.indexes) {
      const old = before[g.name];
      const now = next?.[g.name];
      if (old && now && old.pk === now.pk && old.sk === now.sk) {
        // Same keys: the index copy is rewritten when it holds an attribute the write changed
        // (any, for ALL; a put rewrites every attribute).
        const projected: readonly string[] | undefined =
          g.projection === 'ALL' ? undefined : 'nonKeyAttributes' in g ? g.nonKeyAttributes : [];
        if (!projected || !touched || touched.some((a) => projected.includes(a)))
          this.count(`${g.name} ${now.pk}`);
        continue;
      }
      if (old) this.count(`${g.name} ${old.pk}`);
      if (now) this.count(`${g.name} ${now.pk}`);
    }
    if (next && Object.keys(next).length) this.state.set(id, next);
    else this.state.delete(id);
  }

  put(item: Item): void {
    this.apply(item, indexKeysOf(item));
  }

  update(key: Item, expression: string, names?: Record<string, string>, values?: Item): void {
    const { set, removed } = updatedAttributes(expression, names, values);
    const next: IndexKeys = { ...(this.state.get(itemId(key)) ?? {}) };
    for (const g of TABLE.indexes) {
      const pk = g.partitionKey in set ? str(set[g.partitionKey]) : next[g.name]?.pk;
      const sk = g.sortKey in set ? str(set[g.sortKey]) : next[g.name]?.sk;
      if (
        removed.includes(g.partitionKey) ||
        removed.includes(g.sortKey) ||
        pk === undefined ||
        sk === undefined
      )
        delete next[g.name];
      else next[g.name] = { pk, sk };
    }
    // A value set again as it was changes nothing in an index; the ledger cannot tell, so it
    // counts a set of a projected attribute as a change (an overcount, never an undercount).
    this.apply(key, next, [...Object.keys(set), ...removed]);
  }

  delete(key: Item): void {
    this.apply(key, undefined);
  }

  conflict(key: Item): void {
    const k = `table ${str(key[TABLE.partitionKey])}`;
    this.conflicts.set(k, (this.conflicts.get(k) ?? 0) + 1);
  }

  /** A request the client sent and DynamoDB applied (`input` as the command took it). */
  record(command: string, input: Item): void {
    const write = (w: Item) => {
      if (w.Put) this.put((w.Put as { Item: Item }).Item);
      else if (w.Update) {
        const u = w.Update as {
          Key: Item;
          UpdateExpression: string;
          ExpressionAttributeNames?: Record<string, string>;
          ExpressionAttributeValues?: Item;
        };
        this.update(u.Key, u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues);
      } else if (w.Delete) this.delete((w.Delete as { Key: Item }).Key);
    };
    if (command === 'PutCommand' || command === 'PutItemCommand') write({ Put: input });
    else if (command === 'UpdateCommand' || command === 'UpdateItemCommand') write({ Update: input });
    else if (command === 'DeleteCommand' || command === 'DeleteItemCommand') write({ Delete: input });
    else if (command === 'TransactWriteCommand' || command === 'TransactWriteItemsCommand')
      for (const item of (input.TransactItems as Item[]) ?? []) write(item);
    else if (command === 'BatchWriteCommand' || command === 'BatchWriteItemCommand')
      for (const requests of Object.values((input.RequestItems as Record<string, Item[]>) ?? {}))
        for (const r of requests) {
          if (r.PutRequest) this.put((r.PutRequest as { Item: Item }).Item);
          else if (r.DeleteRequest) this.delete((r.DeleteRequest as { Key: Item }).Key);
        }
  }

  /** A cancelled transaction: each item DynamoDB reports as held by another counts a conflict. */
  cancelled(input: Item, reasons: { Code?: string }[]): void {
    const items = (input.TransactItems as Item[]) ?? [];
    reasons.forEach((r, i) => {
      if (r.Code !== 'TransactionConflict') return;
      const t = items[i] ?? {};
      const op = (t.Put ?? t.Update ?? t.Delete ?? t.ConditionCheck) as
        | { Item?: Item; Key?: Item }
        | undefined;
      const key = op?.Key ?? op?.Item;
      if (key) this.conflict(key);
    });
  }

  reset(): void {
    this.writes.clear();
    this.conflicts.clear();
  }

  /** Every key by its share of all writes counted (table and indexes together), largest first. */
  shares(): KeyShare[] {
    return keyShares(this.writes);
  }
}

/**
 * The kind of a key: its ids and shard numbers replaced (`table STATS#RESELLER#<id>#<n>`), so
 * that a report can name the hottest key of each kind (a reseller's counter shard, a NAS's
 * partition) beside the overall top.
 */
export function kindOf(key: string): string {
  const [where, pk = ''] = key.split(' ', 2) as [string, string?];
  const kind = pk
    .split('#')
    .map((seg, i) =>
      i === 0 ? seg : /^\d+$/.test(seg) ? '<n>' : /\d/.test(seg) && seg.length > 6 ? '<id>' : seg,
    )
    .join('#');
  return `${where} ${kind}`;
}

/** The hottest key of each kind, hottest first, with how many keys of that kind were written. */
export function hottestByKind(shares: readonly KeyShare[]): (KeyShare & { kind: string; keys: number })[] {
  const seen = new Map<string, KeyShare & { kind: string; keys: number }>();
  for (const s of shares) {
    const kind = kindOf(s.key);
    const first = seen.get(kind);
    if (first) first.keys += 1;
    else seen.set(kind, { ...s, kind, keys: 1 });
  }
  return [...seen.values()];
}

/** Each key's share of the total, largest first (ties by key, so a report is stable). */
export function keyShares(writes: ReadonlyMap<string, number>): KeyShare[] {
  let total = 0;
  for (const n of writes.values()) total += n;
  return [...writes]
    .map(([key, n]) => ({ key, writes: n, share: total ? n / total : 0 }))
    .sort((a, b) => b.writes - a.writes || a.key.localeCompare(b.key));
}

/**
 * Counts the client's writes in `ledger`: a middleware after the request was sent, so only
 * what DynamoDB applied counts, and a cancelled transaction's conflicts.
 */
export function installWriteLedger(client: DynamoDBDocumentClient, ledger: WriteLedger): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context as { commandName?: string }).commandName ?? '';
      const input = args.input as Item;
      try {
        const out = await next(args);
        ledger.record(name, input);
        return out;
      } catch (error) {
        const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
        if (reasons) ledger.cancelled(input, reasons);
        throw error;
      }
    },
    { step: 'initialize', name: 'writeLedger' },
  );
}
