import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ddb, instrumentDdb, setDdb, tableName } from '../../functions/core/ddb.js';
import { closeSessionsOfNas, sweepSilentSessions } from '../../functions/radius/closing.js';
import { countersOf, scopeOf } from '../../functions/store/counters.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { OPEN_SHARDS } from '../../functions/store/session-entity.js';
import {
  fullSessions,
  getSession,
  oldestOpenReport,
  openDevicesOfNas,
  Session,
  silentSessions,
} from '../../functions/store/sessions.js';
import { shardOf } from '../../functions/store/shards.js';
import { accountingReport, resellerWithCodes } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { account } from '../support/region.js';
import { drainStreams } from '../support/streams.js';

/** The items a counter is spread over, by scope: the platform's 32, a reseller's 8. */
const COUNTER_SHARDS = { all: 32, reseller: 8 } as const;

/** What FreeRADIUS reports, as the accounting takes it. */
type AccountingReport = Parameters<typeof account>[0];

// No hot key (docs/scale.md): open sessions by last report over OPEN_SHARDS index partitions,
// the platform's and each reseller's counts over several items, on DynamoDB Local.

useTestTable({ streams: true });

async function raw(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
  return (await ddb().send(new GetCommand({ TableName: tableName(), Key: { pk, sk }, ConsistentRead: true })))
    .Item;
}

/** A reseller with one hotspot and `n` codes. */
const reseller = (n: number) => resellerWithCodes(n, 'hk');

/** A Start has used nothing yet; a later report 1,000 bytes in a minute. */
const report = (r: { nasId: string }, code: string, id: string, status: AccountingReport['status']) =>
  accountingReport(r, code, id, status, status === 'Start' ? 0 : 1000);

describe('open sessions by last report', () => {
  it('are spread over the shards by session id, none in the one partition of before', async () => {
    const r = await reseller(64);
    const ids = r.codes.map(() => randomUUID());
    await Promise.all(
      r.codes.map((code, i) => account(report(r, code, ids[i] as string, 'Start'), Date.now())),
    );
    const partitions = new Set<string>();
    for (const id of ids) {
      const item = await raw(`SESSION#${id}`, 'SESSION');
      expect(item?.gsi2pk).toBe(`SESSIONS#OPEN#${shardOf(id, OPEN_SHARDS)}`);
      partitions.add(item?.gsi2pk as string);
    }
    // 64 ids over 64 shards: a hash leaves some empty, but most are used.
    expect(partitions.size).toBeGreaterThanOrEqual(30);
  });

  it('the sweep reads every shard oldest first, a page at a time', async () => {
    const r = await reseller(41);
    const ids = r.codes.map(() => randomUUID());
    await Promise.all(
      r.codes.map((code, i) => account(report(r, code, ids[i] as string, 'Start'), Date.now())),
    );
    // Counted by the table's stream consumer, as it runs after the Starts.
    await drainStreams();
    // Silent since 2001: each a minute older than the next.
    const at = (i: number) => new Date(Date.UTC(2001, 0, 1, 0, i)).toISOString();
    for (const [i, id] of ids.entries()) {
      await Session.update({ id }, { set: { last_report_at: at(i + 1) }, read: await getSession(id) });
    }
    const page = await silentSessions('2002-01-01T00:00:00.000Z', 10);
    expect(page.map((s) => s.id)).toEqual(ids.slice(0, 10));
    // The sweep's age metric reads the oldest silent one of all partitions.
    expect(await oldestOpenReport('2002-01-01T00:00:00.000Z')).toBe(at(1));
    const before = (await countersOf(scopeOf.reseller(r.resellerId))).open;
    expect(before).toBe(41);
    // Pages of 7 across the shards: all 41 closed.
    expect((await sweepSilentSessions(Date.now(), 7)).closed).toBeGreaterThanOrEqual(41);
    for (const id of ids) expect((await getSession(id))?.status).toBe('closed');
    expect(await silentSessions('2002-01-01T00:00:00.000Z', 10)).toEqual([]);
    expect(await oldestOpenReport('2002-01-01T00:00:00.000Z')).toBeUndefined();
    expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(0);
  });
});

describe('open sessions by NAS (gsi4: id, code and device only)', () => {
  it('an interim leaves the index entry as it was; Accounting-On finds and closes the full sessions', async () => {
    const r = await reseller(2);
    const ids = [randomUUID(), randomUUID()];
    for (const [i, code] of r.codes.entries())
      await account(report(r, code, ids[i] as string, 'Start'), Date.now());
    const entry = await raw(`SESSION#${ids[0]}`, 'SESSION');
    expect(entry).toMatchObject({ gsi4pk: `NAS#${r.nasId}#OPEN`, gsi4sk: ids[0] });
    expect(entry).not.toHaveProperty('gsi1pk');
    await account(report(r, r.codes[0] as string, ids[0] as string, 'Interim-Update'), Date.now());
    expect((await openDevicesOfNas(r.nasId)).map((s) => s.id).sort()).toEqual([...ids].sort());
    const full = await fullSessions((await openDevicesOfNas(r.nasId)).map((s) => s.id));
    expect(full.find((s) => s.id === ids[0])?.total_bytes).toBe(1000);
    expect(await closeSessionsOfNas(r.nasId, Date.now())).toEqual({ closed: 2, deferred: 0 });
    expect(await openDevicesOfNas(r.nasId)).toEqual([]);
  });
});

describe('counters out of one hot item', () => {
  it('150 Starts and Stops at once across 20 resellers end with the exact open counts', async () => {
    // The sessions of the tests before counted first: the platform's count is then theirs.
    await drainStreams();
    const all0 = (await countersOf(scopeOf.all())).open;
    const resellers = await Promise.all(Array.from({ length: 20 }, () => reseller(5)));
    const sessions = resellers.flatMap((r) => r.codes.map((code) => ({ r, code, id: randomUUID() })));
    // 75 open first; then, at once, 50 of them stop and the other 25 start (a burst DynamoDB
    // Local answers within its timeouts while another test file runs beside it).
    const first = sessions.slice(0, 75);
    await Promise.all(first.map((s) => account(report(s.r, s.code, s.id, 'Start'), Date.now())));
    const outcomes = await Promise.all([
      ...first.slice(0, 50).map((s) => account(report(s.r, s.code, s.id, 'Stop'), Date.now())),
      ...sessions.slice(75).map((s) => account(report(s.r, s.code, s.id, 'Start'), Date.now())),
    ]);
    expect(outcomes.every((o) => o === 'stored')).toBe(true);
    // The stream consumer counts the Starts (the stopped ones were counted by their Stops: it skips them).
    await drainStreams();
    const openNow = sessions.filter((_s, i) => i >= 50);
    expect((await countersOf(scopeOf.all())).open).toBe(all0 + openNow.length);
    for (const r of resellers) {
      const expected = openNow.filter((s) => s.r === r).length;
      expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(expected);
    }
    // No single platform item took every change: the one of before is never written, and the
    // changes landed on most of the 32 shards.
    expect(await raw('STATS#ALL', 'COUNTERS')).toBeUndefined();
    let written = 0;
    for (let n = 0; n < COUNTER_SHARDS.all; n++) if (await raw(`STATS#ALL#${n}`, 'COUNTERS')) written += 1;
    expect(written).toBeGreaterThanOrEqual(24);
    // Some 300 calls to DynamoDB Local and two stream drains: time enough beside another file.
  }, 180_000);
});

describe("a reseller's month", () => {
  it('counts 24 Starts at once over the session-count shards, summed with the sales item of the month', async () => {
    const r = await reseller(24);
    const month = new Date().toISOString().slice(0, 7);
    // The month's sales item, with session starts counted there before the shards.
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: `REVENUE#${r.resellerId}`,
          sk: `MONTH#${month}`,
          entity: 'revenue',
          reseller_id: r.resellerId,
          month,
          total_fcfa: 500,
          sessions_count: 3,
        },
      }),
    );
    const outcomes = await Promise.all(
      r.codes.map((code) => account(report(r, code, randomUUID(), 'Start'), Date.now())),
    );
    expect(outcomes.every((o) => o === 'stored')).toBe(true);
    await drainStreams();
    expect(await getMonthlyRevenue(r.resellerId, month)).toMatchObject({
      total_fcfa: 500,
      sessions_count: 27,
    });
    // The sales item took none of them: they went to the shards.
    expect((await raw(`REVENUE#${r.resellerId}`, `MONTH#${month}`))?.sessions_count).toBe(3);
    let shards = 0;
    for (let n = 0; n < 8; n++) if (await raw(`REVENUE#${r.resellerId}`, `MONTH#${month}#S${n}`)) shards += 1;
    expect(shards).toBeGreaterThanOrEqual(5);
  });
});

describe('no shared counter in a Start transaction', () => {
  const month = () => new Date().toISOString().slice(0, 7);
  /** The partition keys of every transaction sent while `run` runs, one list a transaction. */
  async function transactions(run: () => Promise<unknown>): Promise<string[][]> {
    const seen: string[][] = [];
    const name = `tx-keys-${randomUUID()}`;
    instrumentDdb(
      (next, context) => async (args) => {
        if ((context as { commandName?: string }).commandName === 'TransactWriteItemsCommand') {
          const items = (args.input as { TransactItems: Record<string, { Key?: unknown; Item?: unknown }>[] })
            .TransactItems;
          seen.push(
            items.map((item) => {
              const action = Object.values(item)[0] as {
                Key?: Record<string, unknown>;
                Item?: Record<string, unknown>;
              };
              const pk = (action.Key ?? action.Item)?.pk as string | { S: string };
              return typeof pk === 'string' ? pk : pk.S;
            }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await run();
    } finally {
      ddb().middlewareStack.remove(name);
      setDdb(undefined);
    }
    return seen;
  }

  it('writes the session and its code only; the stream consumer counts it after', async () => {
    const r = await reseller(1);
    const id = randomUUID();
    const txs = await transactions(() => account(report(r, r.codes[0] as string, id, 'Start'), Date.now()));
    expect(txs).toHaveLength(1);
    expect([...(txs[0] ?? [])].sort()).toEqual([`CODE#${r.codes[0]}`, `SESSION#${id}`].sort());
    expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(0);

    const counting = await transactions(() => drainStreams());
    expect(counting.flat().some((pk) => pk.startsWith('STATS#'))).toBe(true);
    expect(counting.flat().some((pk) => pk.startsWith('REVENUE#'))).toBe(true);
    expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(1);
    expect((await getMonthlyRevenue(r.resellerId, month())).sessions_count).toBe(1);
    expect(await getSession(id)).not.toHaveProperty('uncounted');
  });

  it('a Start not counted yet is counted once, by its next report or by the consumer, whichever comes first', async () => {
    const r = await reseller(2);
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await account(report(r, r.codes[0] as string, a, 'Start'), Date.now())).toBe('stored');
    expect(await account(report(r, r.codes[1] as string, b, 'Start'), Date.now())).toBe('stored');
    expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(0);
    expect(await getSession(a)).toMatchObject({ uncounted: true, status: 'open' });

    // a: the router resends the Start (twice): left to the consumer; b: its Stop comes first and counts it.
    expect(await account(report(r, r.codes[0] as string, a, 'Start'), Date.now())).toBe('unchanged');
    expect(await account(report(r, r.codes[0] as string, a, 'Start'), Date.now())).toBe('unchanged');
    expect(await getSession(a)).toMatchObject({ uncounted: true });
    expect(await account(report(r, r.codes[1] as string, b, 'Stop'), Date.now())).toBe('stored');
    expect((await getMonthlyRevenue(r.resellerId, month())).sessions_count).toBe(1);

    await drainStreams();
    expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(1);
    expect((await getMonthlyRevenue(r.resellerId, month())).sessions_count).toBe(2);
    expect(await getSession(a)).not.toHaveProperty('uncounted');
    expect(await getSession(b)).toMatchObject({ status: 'closed' });
    expect(await getSession(b)).not.toHaveProperty('uncounted');
    // Its Stop closes a counted session: the count goes back down once.
    await account(report(r, r.codes[0] as string, a, 'Stop'), Date.now());
    await drainStreams();
    expect((await countersOf(scopeOf.reseller(r.resellerId))).open).toBe(0);
    expect((await getMonthlyRevenue(r.resellerId, month())).sessions_count).toBe(2);
  });
});
