import { describe, expect, it } from 'vitest';
import { countItems, scopeOf } from '../../functions/store/counters.js';
import { OPEN_SHARDS } from '../../functions/store/session-entity.js';
import { openSessionItems, type RadiusSession, reportItems } from '../../functions/store/sessions.js';
import { shardOf } from '../../functions/store/shards.js';
import { report } from '../support/load-routers.js';
import { hottestByKind, keyShares, kindOf, updatedAttributes, WriteLedger } from '../support/write-keys.js';

/** The items a counter is spread over, by scope: the platform's 32, a reseller's 8. */
const COUNTER_SHARDS = { all: 32, reseller: 8 } as const;

// The key-share computation of `npm run loadtest` (bench/write-keys.ts): what a write costs on
// the table and on each index, from the requests the store sends.

const session = (id: string, over: Partial<RadiusSession> = {}): RadiusSession => ({
  id,
  code: 'CODE1',
  nas_id: 'access_one',
  reseller_id: 'r1',
  device: 'aa:bb',
  status: 'open',
  total_bytes: 0,
  session_time_s: 0,
  started_at: '2026-01-01T19:00:00.000Z',
  last_report_at: '2026-01-01T19:00:00.000Z',
  ...over,
});

const tx = (items: Record<string, unknown>) => ({ TransactItems: Object.values(items) });

describe('keyShares', () => {
  it('gives each key its share of all writes, largest first, ties by key', () => {
    const shares = keyShares(
      new Map([
        ['table b', 1],
        ['gsi2 P', 6],
        ['table a', 1],
        ['table c', 2],
      ]),
    );
    expect(shares.map((s) => [s.key, s.writes, s.share])).toEqual([
      ['gsi2 P', 6, 0.6],
      ['table c', 2, 0.2],
      ['table a', 1, 0.1],
      ['table b', 1, 0.1],
    ]);
    expect(keyShares(new Map())).toEqual([]);
  });
});

describe('kindOf and hottestByKind', () => {
  it('names a key by its kind, ids and shards replaced, and keeps the hottest key of each kind', () => {
    expect(kindOf('table STATS#RESELLER#7d3c8a2e-5b1f-4c9a-8e2d-1f0a9b8c7d6e#3')).toBe(
      'table STATS#RESELLER#<id>#<n>',
    );
    expect(kindOf('table STATS#ALL#17')).toBe('table STATS#ALL#<n>');
    expect(kindOf('gsi4 NAS#access_load_ab12_3_4#OPEN')).toBe('gsi4 NAS#<id>#OPEN');
    expect(kindOf('gsi1 PAYMENTS#PENDING')).toBe('gsi1 PAYMENTS#PENDING');
    const shares = keyShares(
      new Map([
        ['table STATS#ALL#1', 5],
        ['table STATS#ALL#2', 3],
        ['gsi1 PAYMENTS#PENDING', 4],
      ]),
    );
    expect(hottestByKind(shares).map((k) => [k.kind, k.key, k.keys])).toEqual([
      ['table STATS#ALL#<n>', 'table STATS#ALL#1', 2],
      ['gsi1 PAYMENTS#PENDING', 'gsi1 PAYMENTS#PENDING', 1],
    ]);
  });
});

describe('updatedAttributes', () => {
  it('reads what SET gives a value to and what REMOVE takes, through names and values', () => {
    expect(
      updatedAttributes(
        'SET #u0 = :u0, a.b = :x, c = if_not_exists(c, :z) REMOVE #u1, d ADD n :one',
        { '#u0': 'gsi2pk', '#u1': 'gsi1sk' },
        { ':u0': 'P#1', ':x': 1, ':z': 0, ':one': 1 },
      ),
    ).toEqual({ set: { gsi2pk: 'P#1', a: 1, c: undefined }, removed: ['gsi1sk', 'd'] });
  });
});

describe('WriteLedger', () => {
  it('counts a put on its table key and on each index it enters', () => {
    const ledger = new WriteLedger();
    ledger.record('PutItemCommand', { Item: { pk: 'A', sk: 'A', gsi1pk: 'G', gsi1sk: '1', gsi2pk: 'H' } });
    // gsi2 has no sort key on the item: not in that index.
    expect(Object.fromEntries(ledger.writes)).toEqual({ 'table A': 1, 'gsi1 G': 1 });
  });

  it("counts an interim as DynamoDB does: no copy in its NAS's index (nothing it holds changed), its entry in the sweep's index deleted and put in the same shard", () => {
    const ledger = new WriteLedger();
    const s = session('s-1');
    ledger.paused = true;
    ledger.record('TransactWriteItemsCommand', tx(openSessionItems(s, 60, {})));
    ledger.paused = false;
    expect(ledger.writes.size).toBe(0);
    ledger.record(
      'TransactWriteItemsCommand',
      tx(
        reportItems(s, {
          total_bytes: 10,
          session_time_s: 300,
          nowIso: '2026-01-01T19:05:00.000Z',
          lease: 60,
        }),
      ),
    );
    const shard = `gsi2 SESSIONS#OPEN#${shardOf('s-1', OPEN_SHARDS)}`;
    expect(Object.fromEntries(ledger.writes)).toEqual({
      'table SESSION#s-1': 1,
      'table CODE#CODE1': 1,
      [shard]: 2,
    });
  });

  it('counts a close as the session leaving both open indexes and entering the ended one, and the counters on their shards', () => {
    const ledger = new WriteLedger();
    const s = session('s-2');
    ledger.paused = true;
    ledger.record('TransactWriteItemsCommand', tx(openSessionItems(s, 60, {})));
    ledger.paused = false;
    ledger.record(
      'TransactWriteItemsCommand',
      tx(
        reportItems(s, {
          total_bytes: 10,
          session_time_s: 300,
          nowIso: '2026-01-01T19:05:00.000Z',
          lease: 60,
          close: 'stop',
        }),
      ),
    );
    expect(Object.fromEntries(ledger.writes)).toEqual({
      'table SESSION#s-2': 1,
      'table CODE#CODE1': 1,
      'gsi4 NAS#access_one#OPEN': 1,
      [`gsi2 SESSIONS#OPEN#${shardOf('s-2', OPEN_SHARDS)}`]: 1,
      // The close enters the code's ended sessions (the console's search), once.
      'gsi1 CODE#CODE1#ENDED': 1,
      [`table STATS#ALL#${shardOf('s-2', COUNTER_SHARDS.all)}`]: 1,
      [`table STATS#RESELLER#r1#${shardOf('s-2', COUNTER_SHARDS.reseller)}`]: 1,
    });
  });

  it('counts no write for a condition check, and a conflict on the item another transaction held', () => {
    const ledger = new WriteLedger();
    const items = tx({
      check: { ConditionCheck: { TableName: 't', Key: { pk: 'X', sk: 'X' }, ConditionExpression: 'a' } },
      ...countItems('open', [scopeOf.all()], 1, 's-3'),
    });
    ledger.cancelled(items, [{ Code: 'None' }, { Code: 'TransactionConflict' }]);
    expect(Object.fromEntries(ledger.conflicts)).toEqual({
      [`table STATS#ALL#${shardOf('s-3', COUNTER_SHARDS.all)}`]: 1,
    });
    ledger.record('TransactWriteItemsCommand', items);
    expect(Object.fromEntries(ledger.writes)).toEqual({
      [`table STATS#ALL#${shardOf('s-3', COUNTER_SHARDS.all)}`]: 1,
    });
  });

  it('reports the top keys and ends with the hottest key and its share', () => {
    const ledger = new WriteLedger();
    for (let i = 0; i < 3; i++) ledger.record('PutItemCommand', { Item: { pk: 'HOT', sk: String(i) } });
    ledger.record('DeleteItemCommand', { Key: { pk: 'COLD', sk: 'x' } });
    const r = report(ledger, new Map([['POST /x', [3, 1, 2]]]), 3, 0, {
      seconds: 1,
      workers: 1,
      resellers: 1,
      hotspots: 1,
    });
    expect(r.lines).toContain('route POST /x: 3 requests, p50 2.0 ms, p99 3.0 ms');
    expect(r.lines.at(-1)).toBe('hottest key: table HOT 75.00 %');
    expect(r.hottest).toEqual({ key: 'table HOT', writes: 3, share: 0.75 });
  });
});

describe('shardOf', () => {
  it('is stable and spreads ids over every shard', () => {
    expect(shardOf('abc', 64)).toBe(shardOf('abc', 64));
    const counts = new Array(OPEN_SHARDS).fill(0);
    for (let i = 0; i < 6400; i++) counts[shardOf(`${i.toString(16)}f00d${i}`, OPEN_SHARDS)] += 1;
    expect(Math.min(...counts)).toBeGreaterThan(60);
    expect(Math.max(...counts)).toBeLessThan(140);
  });
});
