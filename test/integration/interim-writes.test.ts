import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { accountingExchange } from '../../functions/radius/exchange.js';
import { regionExchange } from '../../functions/radius/table-store.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { getDisconnect } from '../../functions/store/disconnects.js';
import { Nas } from '../../functions/store/nas.js';
import { Router, type RouterRecord } from '../../functions/store/routers.js';
import { countedOf, getSession, Session } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { account } from '../support/region.js';
import { drainStreams } from '../support/streams.js';

// An Interim-Update is one DynamoDB write of its session alone, at most 2 write units (the
// session, and its copy in the open sessions' index); its code's usage, device lease and data
// limit follow from the table's stream (functions/radius/code-usage.ts). Counted on DynamoDB
// Local with its consumed capacity: nothing is counted twice however reports come.

useTestTable({ streams: true });

type Report = Parameters<typeof account>[0];
/** The router of `c`'s reseller, judged. */
const routerOf = (c: { resellerId: string }, resellerId = c.resellerId) => ({
  router_id: 'rtr_iw',
  reseller_id: resellerId,
});
const MiB = 2 ** 20;
const MAC = '02:00:00:00:31:01';

async function setup(offer: { data_limit_mb?: number; max_devices?: number } = {}) {
  const resellerId = randomUUID();
  const nasId = `access_iw_${randomUUID().slice(0, 8)}`;
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'IW', vlan_id: 10, kind: 'vlan' });
  const code = paidCode(resellerId, { data_limit_mb: 10 * 1024, max_devices: 1, ...offer });
  await Access.put(code);
  return { code, nasId, resellerId };
}

const report = (
  c: { code: AccessCode; nasId: string; resellerId: string },
  id: string,
  status: Report['status'],
  input: number,
  output: number,
  sessionTimeS: number,
  extra: Partial<Report> = {},
): Report => ({
  status,
  uniqueId: id,
  userName: c.code.code,
  nasId: c.nasId,
  callingStationId: MAC,
  totalBytes: input + output,
  inputBytes: input,
  outputBytes: output,
  sessionTimeS,
  ...extra,
});

/** The DynamoDB commands `run` sends and the write units they consume (DynamoDB Local's ConsumedCapacity). */
async function costOf<T>(run: () => Promise<T>): Promise<{ result: T; calls: string[]; writeUnits: number }> {
  const probe = probeDdb();
  probe.reset();
  const result = await run();
  const writeUnits = probe.consumed.reduce((n, c) => n + c.writeUnits, 0);
  return { result, calls: [...probe.calls], writeUnits };
}

const used = async (code: string) => (await getAccessCode(code))?.used_bytes;

describe('an Interim-Update is one write', () => {
  it('one UpdateItem of at most 2 write units; the code counts it once the stream is read', async () => {
    const c = await setup();
    const id = randomUUID();
    const t0 = Math.floor(Date.now() / 1000);
    await account(report(c, id, 'Start', 1000, 2000, 0, { eventTime: t0 }), Date.now(), routerOf(c));
    await drainStreams();
    expect(await used(c.code.code)).toBe(3000);
    const leaseBefore = (await getAccessCode(c.code.code))?.devices;

    const cost = await costOf(() =>
      account(
        report(c, id, 'Interim-Update', 5 * MiB, 20 * MiB, 300, { eventTime: t0 + 300 }),
        Date.now() + 300_000,
        routerOf(c),
      ),
    );
    expect(cost.result).toBe('stored');
    expect(cost.calls).toEqual(['UpdateItemCommand']);
    expect(cost.writeUnits).toBeGreaterThan(0);
    expect(cost.writeUnits).toBeLessThanOrEqual(2);
    expect(await getSession(id)).toMatchObject({
      total_bytes: 25 * MiB,
      input_bytes: 5 * MiB,
      session_time_s: 300,
    });
    // Not on the code yet: the stream counts it.
    expect(await used(c.code.code)).toBe(3000);

    await drainStreams();
    const code = await getAccessCode(c.code.code);
    expect(code?.used_bytes).toBe(25 * MiB);
    expect((code as unknown as Record<string, number>)[countedOf(id)]).toBe(25 * MiB);
    // The device's lease follows the last report.
    const key = Object.keys(code?.devices ?? {})[0] as string;
    expect(code?.devices[key]).toBeGreaterThan(leaseBefore?.[key] ?? 0);
  });

  it('a replayed, duplicated or late interim is one call that changes nothing, and is counted once', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now(), routerOf(c));
    await account(report(c, id, 'Interim-Update', MiB, 9 * MiB, 300), Date.now(), routerOf(c));
    await account(report(c, id, 'Interim-Update', 2 * MiB, 18 * MiB, 600), Date.now(), routerOf(c));
    for (const late of [
      report(c, id, 'Interim-Update', 2 * MiB, 18 * MiB, 600),
      report(c, id, 'Interim-Update', MiB, 9 * MiB, 300),
    ]) {
      const cost = await costOf(() => account(late, Date.now(), routerOf(c)));
      expect(cost.result).toBe('unchanged');
      expect(cost.calls).toEqual(['UpdateItemCommand']);
    }
    await drainStreams();
    await drainStreams();
    expect(await used(c.code.code)).toBe(20 * MiB);
  });

  it('parallel interims of one session, each sent twice, count its largest total once', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now(), routerOf(c));
    const interims = Array.from({ length: 12 }, (_, i) =>
      report(c, id, 'Interim-Update', (i + 1) * MiB, (i + 1) * 4 * MiB, (i + 1) * 60),
    );
    await Promise.all([...interims, ...interims].map((r) => account(r, Date.now(), routerOf(c))));
    await drainStreams();
    expect((await getSession(id))?.total_bytes).toBe(60 * MiB);
    expect(await used(c.code.code)).toBe(60 * MiB);
    // Delivered again (Lambda retries a batch): nothing more.
    await account(interims[11] as Report, Date.now(), routerOf(c));
    await drainStreams();
    expect(await used(c.code.code)).toBe(60 * MiB);
  });

  it('parallel interims of two devices of one code count each session once', async () => {
    const c = await setup({ max_devices: 2 });
    const [a, b] = [randomUUID(), randomUUID()];
    await account(report(c, a, 'Start', 0, 0, 0), Date.now(), routerOf(c));
    await account(
      report(c, b, 'Start', 0, 0, 0, { callingStationId: '02:00:00:00:31:02' }),
      Date.now(),
      routerOf(c),
    );
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => [
        account(report(c, a, 'Interim-Update', 0, (i + 1) * MiB, (i + 1) * 60), Date.now(), routerOf(c)),
        account(
          report(c, b, 'Interim-Update', 0, (i + 1) * 2 * MiB, (i + 1) * 60, {
            callingStationId: '02:00:00:00:31:02',
          }),
          Date.now(),
          routerOf(c),
        ),
      ]).flat(),
    );
    await drainStreams();
    expect(await used(c.code.code)).toBe(24 * MiB);
  });

  it('a 32-bit wrap takes the long way, after interims the stream has not counted yet, and nothing is counted twice', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 1000, 0), Date.now(), routerOf(c));
    await account(report(c, id, 'Interim-Update', 0, 4_000_000_000, 60), Date.now(), routerOf(c));
    // Not drained: the code counted 1000 of it. The counter wraps (no Gigawords): the long way.
    const cost = await costOf(() =>
      account(report(c, id, 'Interim-Update', 0, 200_000_000, 120), Date.now(), routerOf(c)),
    );
    expect(cost.result).toBe('stored');
    expect(cost.calls).toEqual(['UpdateItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(await used(c.code.code)).toBe(2 ** 32 + 200_000_000);
    await drainStreams();
    expect(await used(c.code.code)).toBe(2 ** 32 + 200_000_000);
    // An implausible fall (L6: not near 4 GiB) adds nothing.
    expect(await account(report(c, id, 'Interim-Update', 0, 100_000_000, 180), Date.now(), routerOf(c))).toBe(
      'stored',
    );
    await drainStreams();
    expect(await used(c.code.code)).toBe(2 ** 32 + 200_000_000);
  });

  it('a Stop after interims the stream has not counted counts the rest once and ends the entry', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now(), routerOf(c));
    await account(report(c, id, 'Interim-Update', 0, 7 * MiB, 60), Date.now(), routerOf(c));
    const stop = await costOf(() => account(report(c, id, 'Stop', 0, 9 * MiB, 90), Date.now(), routerOf(c)));
    expect(stop.calls).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(await used(c.code.code)).toBe(9 * MiB);
    await drainStreams();
    const code = await getAccessCode(c.code.code);
    expect(code?.used_bytes).toBe(9 * MiB);
    expect(code).not.toHaveProperty(countedOf(id));
    // An interim after the Stop: the session stays closed; the bytes it reports count, once.
    expect(await account(report(c, id, 'Interim-Update', 0, 12 * MiB, 120), Date.now(), routerOf(c))).toBe(
      'stored',
    );
    await drainStreams();
    expect((await getSession(id))?.status).toBe('closed');
    expect(await used(c.code.code)).toBe(12 * MiB);
    expect(await account(report(c, id, 'Interim-Update', 0, 12 * MiB, 120), Date.now(), routerOf(c))).toBe(
      'unchanged',
    );
    await drainStreams();
    expect(await used(c.code.code)).toBe(12 * MiB);
  });

  it('a session written before the stream counted interims takes the long way once, then one write', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 1000, 0), Date.now(), routerOf(c));
    await drainStreams();
    // As the first report wrote it before: no `by_stream`, no entry on its code.
    await Session.update({ id }, { set: { by_stream: undefined } });
    await Access.update({ code: c.code.code }, { expression: 'REMOVE #c', names: { '#c': countedOf(id) } });
    const long = await costOf(() =>
      account(report(c, id, 'Interim-Update', 0, 2 * MiB, 60), Date.now(), routerOf(c)),
    );
    expect(long.calls).toEqual(['UpdateItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand']);
    expect(await used(c.code.code)).toBe(2 * MiB);
    const one = await costOf(() =>
      account(report(c, id, 'Interim-Update', 0, 3 * MiB, 120), Date.now(), routerOf(c)),
    );
    expect(one.calls).toEqual(['UpdateItemCommand']);
    await drainStreams();
    expect(await used(c.code.code)).toBe(3 * MiB);
  });

  it("another reseller's router writes nothing of the session, in one call", async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 1000, 0), Date.now(), routerOf(c));
    const cost = await costOf(() =>
      account(report(c, id, 'Interim-Update', 0, 50 * MiB, 60), Date.now(), routerOf(c, randomUUID())),
    );
    expect(cost.result).toBe('ignored');
    expect(cost.calls).toEqual(['UpdateItemCommand']);
    expect((await getSession(id))?.total_bytes).toBe(1000);
  });

  it('the interim that uses up the data disconnects the code’s other session once the stream counts it', async () => {
    const c = await setup({ data_limit_mb: 10, max_devices: 2 });
    const [a, b] = [randomUUID(), randomUUID()];
    const other = { callingStationId: '02:00:00:00:31:02', acctSessionId: 'b-1', nasIp: '192.0.2.10' };
    await account(
      report(c, a, 'Start', 0, 0, 0, { acctSessionId: 'a-1', nasIp: '192.0.2.10' }),
      Date.now(),
      routerOf(c),
    );
    await account(report(c, b, 'Start', 0, 0, 0, other), Date.now(), routerOf(c));
    await drainStreams();
    expect(await account(report(c, a, 'Interim-Update', 0, 11 * MiB, 60), Date.now(), routerOf(c))).toBe(
      'stored',
    );
    expect(await getDisconnect(b)).toBeUndefined();
    await drainStreams();
    expect(await used(c.code.code)).toBe(11 * MiB);
    expect(await getDisconnect(b)).toMatchObject({ session_id: b, reason: 'data_used' });
  });
});

describe('a router held by the process (RADIUS_ROUTER_HOLD_S)', () => {
  it('is judged without a read: the interim stays one call; revoked, it is refused once the hold ends', async () => {
    const c = await setup();
    const id = randomUUID();
    const router: RouterRecord = {
      router_id: `r_${randomUUID().slice(0, 8)}`,
      reseller_id: c.resellerId,
      name: 'IW',
      nas_ids: [c.nasId],
      transport: 'udp',
      status: 'active',
      created_at: new Date().toISOString(),
      last_heard_at: new Date().toISOString(),
    };
    await Router.put(router);
    const attrs = (status: string, bytes: number, t: number) =>
      new Map(
        Object.entries({
          'Hotspot-Router-Id': router.router_id,
          'NAS-Identifier': c.nasId,
          'Acct-Status-Type': status,
          'Acct-Unique-Session-Id': id,
          'User-Name': c.code.code,
          'Calling-Station-Id': MAC,
          'Acct-Input-Octets64': '0',
          'Acct-Output-Octets64': String(bytes),
          'Acct-Session-Time': String(t),
        }),
      );
    const send = (status: string, bytes: number, t: number) =>
      accountingExchange(attrs(status, bytes, t), regionExchange(Date.now()));
    process.env.RADIUS_ROUTER_HOLD_S = '60';
    resetConfig();
    try {
      await send('Start', 1000, 0);
      const cost = await costOf(() => send('Interim-Update', 5000, 60));
      expect(cost.result).toMatchObject({ status: 204, outcome: 'stored' });
      expect(cost.calls).toEqual(['UpdateItemCommand']);
      // Revoked: held as read until the hold ends, then refused, and nothing written.
      await Router.update({ router_id: router.router_id }, { set: { status: 'revoked' }, read: router });
      process.env.RADIUS_ROUTER_HOLD_S = '0';
      resetConfig();
      const refused = await costOf(() => send('Interim-Update', 9000, 120));
      expect(refused.result).toMatchObject({ status: 204, routerRefused: 'router_revoked' });
      expect(refused.calls).toEqual(['BatchGetItemCommand']);
      expect((await getSession(id))?.total_bytes).toBe(5000);
    } finally {
      delete process.env.RADIUS_ROUTER_HOLD_S;
      resetConfig();
    }
  });
});
