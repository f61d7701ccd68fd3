import { randomUUID } from 'node:crypto';
import { type AttributeValue, CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { localClient } from '../../bin/local/dynamodb-local.js';
import { matchesFilter } from '../../bin/local/streams.js';
import { createTable } from '../../bin/local/table.js';
import { instrumentDdb, setDdb } from '../../functions/core/ddb.js';
import { countSessions } from '../../functions/radius/count-sessions.js';
import { handler } from '../../functions/radius/session-counts.js';
import { Access } from '../../functions/store/access-codes.js';
import { countersOf, scopeOf } from '../../functions/store/counters.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { getSession, type RadiusSession, Session } from '../../functions/store/sessions.js';
import { TABLE } from '../../functions/store/table.js';
import { streamConsumers } from '../../functions/streams.js';
import { accountingReport, resellerWithCodes } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { account } from '../support/region.js';
import { drainStreams } from '../support/streams.js';

// New sessions are counted by the table's stream consumer (functions/radius/session-counts.ts),
// on DynamoDB Local and its stream: once, whoever else counts, however often a record comes.

useTestTable({ streams: true });

const month = () => new Date().toISOString().slice(0, 7);
const consumer = streamConsumers.find((c) => c.name === 'SessionCounts');

/** A reseller with one hotspot and `n` codes. */
const reseller = (n: number) => resellerWithCodes(n, 'sc');

const report = accountingReport;

/** One session started (Accounting Start) on each of the reseller's codes, in parallel; their ids. */
async function startEach(r: Awaited<ReturnType<typeof reseller>>): Promise<string[]> {
  const ids = r.codes.map(() => randomUUID());
  await Promise.all(
    r.codes.map((code, i) => account(report(r, code, ids[i] as string, 'Start'), Date.now())),
  );
  return ids;
}

/** The stream record Lambda would hand over for a session as stored now. */
async function recordOf(id: string, sequence: string): Promise<DynamoDBRecord> {
  const s = (await getSession(id)) as RadiusSession;
  return {
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      SequenceNumber: sequence,
      NewImage: marshall(Session.item(s), { removeUndefinedValues: true }) as Record<
        string,
        AttributeValue
      > as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
    },
  };
}

const counts = async (r: { resellerId: string }) => ({
  open: (await countersOf(scopeOf.reseller(r.resellerId))).open,
  month: (await getMonthlyRevenue(r.resellerId, month())).sessions_count,
});

/** How many TransactWriteItems are sent while `run` runs. */
async function transactionsDuring(run: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const name = `count-tx-${randomUUID()}`;
  instrumentDdb(
    (next, context) => async (args) => {
      if ((context as { commandName?: string }).commandName === 'TransactWriteItemsCommand') n += 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    setDdb(undefined);
  }
  return n;
}

describe('the session counts stream consumer', () => {
  it('counts a Start once the stream is read, and not before: the Start makes two DynamoDB calls', async () => {
    const r = await reseller(1);
    const id = randomUUID();
    const txs = await transactionsDuring(() =>
      account(report(r, r.codes[0] as string, id, 'Start'), Date.now()),
    );
    expect(txs).toBe(1);
    expect(await getSession(id)).toMatchObject({ uncounted: true, status: 'open' });
    expect(await counts(r)).toEqual({ open: 0, month: 0 });

    await drainStreams();
    expect(await counts(r)).toEqual({ open: 1, month: 1 });
    expect((await countersOf(scopeOf.all())).open).toBeGreaterThanOrEqual(1);
    expect(await getSession(id)).not.toHaveProperty('uncounted');
  });

  it('counts once under duplicate records, a retransmitted Start and a batch delivered again', async () => {
    const r = await reseller(2);
    const [a, b] = [randomUUID(), randomUUID()];
    await account(report(r, r.codes[0] as string, a, 'Start'), Date.now());
    await account(report(r, r.codes[1] as string, b, 'Start'), Date.now());
    // The router resends a's Start: nothing changes, and nothing is counted by the API.
    expect(await account(report(r, r.codes[0] as string, a, 'Start'), Date.now())).toBe('unchanged');
    const batch: DynamoDBStreamEvent = {
      Records: [await recordOf(a, '100'), await recordOf(a, '101'), await recordOf(b, '102')],
    };
    expect(await handler(batch)).toEqual({ batchItemFailures: [] });
    expect(await handler(batch)).toEqual({ batchItemFailures: [] });
    await drainStreams();
    await drainStreams();
    expect(await counts(r)).toEqual({ open: 2, month: 2 });
  });

  it("counts once when the consumer and the session's Interim race, many times over (parallel)", async () => {
    const r = await reseller(30);
    const ids = await startEach(r);
    const records = await Promise.all(ids.map((id, i) => recordOf(id, String(1000 + i))));
    // The consumer (three deliveries of the batch at once, and the table's own stream) and each
    // session's Interim all at the same time: each may count a session it finds uncounted.
    await Promise.all([
      handler({ Records: records }),
      handler({ Records: [...records].reverse() }),
      handler({ Records: records.slice(10) }),
      drainStreams(),
      ...r.codes.map((code, i) =>
        account(report(r, code, ids[i] as string, 'Interim-Update', 5000), Date.now()),
      ),
    ]);
    await drainStreams();
    expect(await counts(r)).toEqual({ open: 30, month: 30 });
    for (const id of ids) expect(await getSession(id)).not.toHaveProperty('uncounted');
  });

  it('leaves open uncounted for a session whose Stop came before the consumer: the month counts it once', async () => {
    const r = await reseller(1);
    const id = randomUUID();
    await account(report(r, r.codes[0] as string, id, 'Start'), Date.now());
    const start = await recordOf(id, '200');
    expect(await account(report(r, r.codes[0] as string, id, 'Stop', 2000), Date.now())).toBe('stored');
    expect(await counts(r)).toEqual({ open: 0, month: 1 });

    // The Start's record, delivered late (and the stream read as it comes): nothing more.
    expect(await handler({ Records: [start] })).toEqual({ batchItemFailures: [] });
    await drainStreams();
    expect(await counts(r)).toEqual({ open: 0, month: 1 });
    expect(await getSession(id)).toMatchObject({ status: 'closed' });
  });

  it('counts a batch of sessions in fewer transactions than sessions, each counter item added to once', async () => {
    const r = await reseller(60);
    const ids = await startEach(r);
    const sessions = (await Promise.all(ids.map((id) => getSession(id)))) as RadiusSession[];
    let outcome: Awaited<ReturnType<typeof countSessions>> | undefined;
    const txs = await transactionsDuring(async () => {
      outcome = await countSessions(sessions);
    });
    expect(outcome).toMatchObject({ skipped: [], failed: [] });
    expect(outcome?.counted).toHaveLength(60);
    // Few transactions, one a group of sessions (no conflict here, so none repeated).
    expect(outcome?.transactions).toBeLessThan(sessions.length / 10);
    expect(txs).toBe(outcome?.transactions);
    expect(await counts(r)).toEqual({ open: 60, month: 60 });
    await drainStreams();
    expect(await counts(r)).toEqual({ open: 60, month: 60 });
  });

  it('drops the sessions another writer counted from a cancelled transaction and counts the rest in it', async () => {
    const r = await reseller(4);
    const ids = await startEach(r);
    const sessions = (await Promise.all(ids.map((id) => getSession(id)))) as RadiusSession[];
    // Two of them report again first, the long way (their session time did not grow: no one-write
    // interim, functions/radius/interim.ts): their reports count them.
    const again = (i: number) => ({
      ...report(r, r.codes[i] as string, ids[i] as string, 'Interim-Update', 100),
      sessionTimeS: 0,
    });
    await account(again(0), Date.now());
    await account(again(2), Date.now());

    const txs = await transactionsDuring(async () => {
      expect(await countSessions(sessions)).toMatchObject({
        counted: [ids[1], ids[3]],
        skipped: expect.arrayContaining([ids[0], ids[2]]),
        failed: [],
      });
    });
    expect(txs).toBeLessThanOrEqual(3);
    expect(await counts(r)).toEqual({ open: 4, month: 4 });
  });

  it('is invoked only for session items that carry uncounted (its filter, as Lambda and the local poller apply it)', async () => {
    const r = await reseller(1);
    const id = randomUUID();
    await account(report(r, r.codes[0] as string, id, 'Start'), Date.now());
    const record = await recordOf(id, '300');
    const filter = consumer?.filter;
    expect(filter).toBeDefined();
    expect(matchesFilter(record, filter)).toBe(true);
    expect(matchesFilter({ ...record, eventName: 'REMOVE' }, filter)).toBe(false);
    const image = { ...record.dynamodb?.NewImage };
    delete image.uncounted;
    expect(matchesFilter({ ...record, dynamodb: { ...record.dynamodb, NewImage: image } }, filter)).toBe(
      false,
    );
    const code = marshall(Access.item((await Access.get({ code: r.codes[0] as string })) as never), {
      removeUndefinedValues: true,
    });
    expect(
      matchesFilter({ ...record, dynamodb: { NewImage: { ...code, uncounted: { BOOL: true } } } }, filter),
    ).toBe(false);
    // The entity name in the filter is the session entity's.
    expect(JSON.stringify(filter)).toContain(`"${Session.name}"`);
  });

  it("turns the stream on, and adds the indexes it lacks, for a local table kept on disk from before (npm start's createTable)", async () => {
    const client = localClient(process.env.DYNAMODB_ENDPOINT as string);
    const name = `old-${randomUUID()}`;
    const before = TABLE.indexes.filter((i) => i.name !== 'gsi5');
    try {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          // As a table of before the voucher lists' index: the other GSIs, no gsi5, no stream.
          AttributeDefinitions: ['pk', 'sk', ...before.flatMap((i) => [i.partitionKey, i.sortKey])].map(
            (a) => ({
              AttributeName: a,
              AttributeType: 'S' as const,
            }),
          ),
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          GlobalSecondaryIndexes: before.map((i) => ({
            IndexName: i.name,
            KeySchema: [
              { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
              { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' as const },
          })),
        }),
      );
      // The emulator builds the index in the background; under a whole test run, for a long while.
      await createTable(client, name, { waitForIndexes: false });
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
      // And the index it lacked (gsi5, the voucher lists, came after the others): created.
      expect((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName).sort()).toEqual(
        TABLE.indexes.map((i) => i.name).sort(),
      );
    } finally {
      client.destroy();
    }
  });
});
