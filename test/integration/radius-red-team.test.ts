import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { closeSessionsOfNas, sweepSilentSessions } from '../../functions/radius/closing.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { countersOf, scopeOf } from '../../functions/store/counters.js';
import { Nas } from '../../functions/store/nas.js';
import { getSession, Session } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { account, authorizeLogin } from '../support/region.js';
import { drainStreams } from '../support/streams.js';

/** What FreeRADIUS reports, as the accounting takes it. */
type AccountingReport = Parameters<typeof account>[0];

// The red-team findings of accounting, replayed on DynamoDB Local through account() (the
// logic behind POST /api/v1/radius/accounting; the wire side is in test/edge/red-team.test.ts).

// With the table's stream: an interim's bytes reach its code through the stream consumer
// (functions/radius/code-usage.ts), read before each count.
useTestTable({ streams: true });

const usedBytes = async (code: string): Promise<number | undefined> => {
  await drainStreams();
  return (await getAccessCode(code))?.used_bytes;
};

const MiB = 2 ** 20;

async function setup(maxDevices = 1): Promise<{ code: AccessCode; nasId: string; resellerId: string }> {
  const resellerId = randomUUID();
  const nasId = `access_rt_${randomUUID().slice(0, 8)}`;
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'RT', vlan_id: 10, kind: 'vlan' });
  const code = paidCode(resellerId, { data_limit_mb: 10 * 1024, max_devices: maxDevices });
  await Access.put(code);
  return { code, nasId, resellerId };
}

const report = (
  c: { code: AccessCode; nasId: string },
  id: string,
  status: AccountingReport['status'],
  input: number,
  output: number,
  sessionTimeS: number,
  eventTime?: number,
  mac = '02:00:00:00:20:0A',
): AccountingReport => ({
  status,
  uniqueId: id,
  userName: c.code.code,
  nasId: c.nasId,
  callingStationId: mac,
  totalBytes: input + output,
  inputBytes: input,
  outputBytes: output,
  sessionTimeS,
  ...(eventTime !== undefined ? { eventTime } : {}),
});

describe('red team: L2 (a reused Acct-Session-Id)', () => {
  it('L2: a router that reset its counters and reused the session id has its new usage counted', async () => {
    const c = await setup();
    const id = randomUUID();
    const t = Math.floor(Date.now() / 1000);
    await account(report(c, id, 'Start', 0, 0, 0, t), Date.now());
    await account(report(c, id, 'Interim-Update', 10 * MiB, 180 * MiB, 600, t + 600), Date.now());
    // The router rebooted: the same Acct-Session-Id again, counters from zero.
    await account(report(c, id, 'Start', 0, 0, 0, t + 700), Date.now());
    await account(report(c, id, 'Interim-Update', 20 * MiB, 170 * MiB, 300, t + 1000), Date.now());
    expect(await usedBytes(c.code.code)).toBe(380 * MiB);
    // The retransmitted Start and a late interim of the first segment add nothing.
    await account(report(c, id, 'Start', 0, 0, 0, t + 700), Date.now());
    await account(report(c, id, 'Interim-Update', 10 * MiB, 180 * MiB, 600, t + 600), Date.now());
    expect(await usedBytes(c.code.code)).toBe(380 * MiB);
  });
});

describe('red team: L3 (counters that wrap)', () => {
  it('L3: a router that wraps at 4 GiB without Gigawords has the bytes after the wrap counted', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now());
    await account(report(c, id, 'Interim-Update', 1000, 4_000_000_000, 300), Date.now());
    // Output wrapped: 4,000,000,000 + 500,000,000 - 2^32.
    await account(report(c, id, 'Interim-Update', 2000, 4_500_000_000 - 2 ** 32, 600), Date.now());
    expect(await usedBytes(c.code.code)).toBe(2000 + 4_500_000_000);
    // A late report (earlier session time) is not a wrap.
    await account(report(c, id, 'Interim-Update', 1000, 4_000_000_000, 300), Date.now());
    await account(report(c, id, 'Stop', 3000, 4_600_000_000 - 2 ** 32, 700), Date.now());
    expect(await usedBytes(c.code.code)).toBe(3000 + 4_600_000_000);
  });
});

describe('red team: M6 (a closed session that reports again)', () => {
  it('M6: an Interim from a session closed as stale reopens it: a second device is refused on max_devices=1', async () => {
    const c = await setup();
    const id = randomUUID();
    const a = { userName: c.code.code, nasId: c.nasId, callingStationId: '02:00:00:00:20:0A' };
    expect((await authorizeLogin(a, Date.now())).accept).toBe(true);
    await account(report(c, id, 'Start', 0, 0, 0), Date.now());
    await account(report(c, id, 'Interim-Update', 0, 5 * MiB, 300), Date.now());
    // The sweep closes it (its reports were late), and its lease ends.
    const session = await getSession(id);
    await Session.update(
      { id },
      { set: { last_report_at: new Date(Date.now() - 3600_000).toISOString() }, read: session },
    );
    expect((await sweepSilentSessions(Date.now())).closed).toBeGreaterThanOrEqual(1);
    expect((await getSession(id))?.status).toBe('closed');
    expect((await getAccessCode(c.code.code))?.devices).toEqual({});
    // It was on all along: its next Interim counts, reopens it and takes its device's lease back.
    await account(report(c, id, 'Interim-Update', 0, 8 * MiB, 600), Date.now());
    expect((await getSession(id))?.status).toBe('open');
    expect(await usedBytes(c.code.code)).toBe(8 * MiB);
    expect((await countersOf(scopeOf.reseller(c.resellerId))).open).toBe(1);
    const b = await authorizeLogin({ ...a, callingStationId: '02:00:00:00:20:0B' }, Date.now());
    expect(b).toEqual({ accept: false, reason: 'device_limit' });
  });

  it('M6: the same after Accounting-On, and a Stop then closes it for good', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now());
    expect(await closeSessionsOfNas(c.nasId, Date.now())).toEqual({ closed: 1, deferred: 0 });
    await account(report(c, id, 'Interim-Update', 0, MiB, 300), Date.now());
    expect((await getSession(id))?.status).toBe('open');
    const b = await authorizeLogin(
      { userName: c.code.code, nasId: c.nasId, callingStationId: '02:00:00:00:20:0B' },
      Date.now(),
    );
    expect(b).toEqual({ accept: false, reason: 'device_limit' });
    await account(report(c, id, 'Stop', 0, 2 * MiB, 400), Date.now());
    await account(report(c, id, 'Interim-Update', 0, 2 * MiB, 500), Date.now());
    expect((await getSession(id))?.status).toBe('closed');
    expect((await getAccessCode(c.code.code))?.devices).toEqual({});
  });
});

describe('red team of issue 31: L6 (a counter that falls)', () => {
  it('L6: a byte count that falls a little with a longer session time is a glitch, not a 4 GiB wrap: it adds nothing and the data goes on', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now());
    await account(report(c, id, 'Interim-Update', 0, 100 * MiB, 300), Date.now());
    // One bad report: 50 MiB where 100 MiB was.
    await account(report(c, id, 'Interim-Update', 0, 50 * MiB, 600), Date.now());
    expect(await usedBytes(c.code.code)).toBe(100 * MiB);
    // The counter goes on from where it really is.
    await account(report(c, id, 'Interim-Update', 0, 120 * MiB, 900), Date.now());
    expect(await usedBytes(c.code.code)).toBe(120 * MiB);
    const a = { userName: c.code.code, nasId: c.nasId, callingStationId: '02:00:00:00:20:0A' };
    expect((await authorizeLogin(a, Date.now())).accept).toBe(true);
  });

  it('L6: a fall from near 4 GiB to near 0 is a wrap only when the traffic it implies fits the interval', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now());
    await account(report(c, id, 'Interim-Update', 0, 4_000_000_000, 300), Date.now());
    // 500 MB in one second: no hotspot device does that.
    await account(report(c, id, 'Interim-Update', 0, 4_500_000_000 - 2 ** 32, 301), Date.now());
    expect(await usedBytes(c.code.code)).toBe(4_000_000_000);
    // The same over five minutes is a wrap.
    await account(report(c, id, 'Interim-Update', 0, 4_500_000_000 - 2 ** 32, 600), Date.now());
    expect(await usedBytes(c.code.code)).toBe(4_500_000_000);
  });

  it('L6: a NAS that sends Gigawords never wraps: its total falling adds nothing', async () => {
    const c = await setup();
    const id = randomUUID();
    await account(report(c, id, 'Start', 0, 0, 0), Date.now());
    await account(report(c, id, 'Interim-Update', 0, 2 ** 32 + 3_900_000_000, 300), Date.now());
    await account(report(c, id, 'Interim-Update', 0, 2 ** 32 + 100_000_000, 600), Date.now());
    expect(await usedBytes(c.code.code)).toBe(2 ** 32 + 3_900_000_000);
  });
});
