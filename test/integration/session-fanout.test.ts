import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { fanOut } from '../../functions/core/fan-out.js';
import { sweepSilentSessions } from '../../functions/radius/closing.js';
import { Access } from '../../functions/store/access-codes.js';
import { countersOf, scopeOf } from '../../functions/store/counters.js';
import { Nas } from '../../functions/store/nas.js';
import { pendingNasCloses } from '../../functions/store/nas-closes.js';
import { OPEN_SHARDS } from '../../functions/store/session-entity.js';
import { getSession, openDevicesOfNas, type RadiusSession } from '../../functions/store/sessions.js';
import { shardOf } from '../../functions/store/shards.js';
import { paidCode } from '../support/access.js';
import { createTestTable, dropTestTables } from '../support/db.js';
import { account } from '../support/region.js';
import { drainStreams } from '../support/streams.js';

/** What FreeRADIUS reports, as the accounting takes it. */
type AccountingReport = Parameters<typeof account>[0];

// Accounting-On/Off and the sweep close sessions in bulk, fanned out with a time budget
// (functions/radius/closing.ts), on DynamoDB Local: each session closed once, its usage kept.
//
// No case depends on how much work fits a wall-clock budget: the sweep's budget is set far past
// anything a run here takes (a day), except where a case sets it to nothing at all, or to a short
// one whose outcome it checks for any split (what was closed and what was left add up). How many
// closes fit a second is the bench's figure, not a test's.

/** A bound against a hung case, not a measure: a busy machine may take minutes over these. */
const HUNG = 20 * 60_000;

// Each case on a fresh table (with its stream: a Start is counted open, and an interim's bytes
// reach its code, by the stream consumers of functions/streams.ts, drained before a count is
// read), so that no session another case left open is in its sweep's counts.
beforeEach(async () => {
  process.env.RADIUS_SWEEP_BUDGET_MS = String(24 * 3600_000);
  resetConfig();
  await createTestTable({ streams: true });
});

afterEach(async () => {
  delete process.env.RADIUS_NAS_CLOSE_BUDGET_MS;
  delete process.env.RADIUS_SWEEP_BUDGET_MS;
  resetConfig();
  await dropTestTables();
});

/** Runs `fn` over `items`, 32 at a time (seeding thousands of sessions). */
async function each<T>(items: readonly T[], fn: (t: T) => Promise<unknown>): Promise<void> {
  await fanOut(items, { concurrency: 32, until: Number.POSITIVE_INFINITY }, async (t) => {
    await fn(t);
    return undefined;
  });
}

interface Network {
  resellerId: string;
  nasIds: string[];
  codes: string[];
}

/** A reseller with `nases` hotspots and `codes` access codes. */
async function givenNetwork(nases: number, codes: number): Promise<Network> {
  const resellerId = randomUUID();
  const nasIds = Array.from({ length: nases }, () => `access_fo_${randomUUID().slice(0, 8)}`);
  await each(nasIds, (nasId) =>
    Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'FO', vlan_id: 10, kind: 'vlan' }),
  );
  const made = Array.from({ length: codes }, () => randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase());
  await each(made, (code) =>
    Access.put(paidCode(resellerId, { data_limit_mb: 100_000, max_devices: 50 }, { code })),
  );
  return { resellerId, nasIds, codes: made };
}

interface Live {
  id: string;
  code: string;
  nasId: string;
  device: string;
}

const report = (s: Live, status: AccountingReport['status'], bytes: number): AccountingReport => ({
  status,
  uniqueId: s.id,
  userName: s.code,
  nasId: s.nasId,
  callingStationId: s.device,
  totalBytes: bytes,
  sessionTimeS: bytes === 0 ? 0 : 60,
});

const mac = (i: number) =>
  `02:00:${[(i >> 16) & 255, (i >> 8) & 255, i & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;

/**
 * Sessions (`n` of them, or one per id of `ids`) over the network's NASes and codes (several
 * devices per code: their closes meet on the code's item), each started and reported `bytes` at
 * `atMs`.
 */
async function givenSessions(
  net: Network,
  n: number | readonly string[],
  bytes: number,
  atMs = Date.now(),
): Promise<Live[]> {
  const ids = typeof n === 'number' ? Array.from({ length: n }, () => randomUUID()) : n;
  const live = ids.map((id, i) => ({
    id,
    code: net.codes[i % net.codes.length] as string,
    nasId: net.nasIds[i % net.nasIds.length] as string,
    device: mac(i),
  }));
  await each(live, async (s) => {
    expect(await account(report(s, 'Start', 0), atMs)).toBe('stored');
    // `unchanged`: the SDK sent again a write DynamoDB Local applied but answered past the
    // request timeout (a busy machine); the sessions' bytes each case checks say it is stored.
    expect(['stored', 'unchanged']).toContain(await account(report(s, 'Interim-Update', bytes), atMs));
  });
  await drainStreams();
  return live;
}

const sessionsOf = async (live: readonly Live[]): Promise<RadiusSession[]> => {
  const out: RadiusSession[] = [];
  await each(live, async (s) => out.push((await getSession(s.id)) as RadiusSession));
  return out;
};

const usedBytes = async (codes: readonly string[]): Promise<number> => {
  await drainStreams();
  let sum = 0;
  await each(codes, async (code) => {
    const used = (await Access.get({ code }, { consistent: true }))?.used_bytes ?? 0;
    sum += used;
  });
  return sum;
};

const openCount = async (net: Network) => (await countersOf(scopeOf.reseller(net.resellerId))).open;

/** Session ids, exactly `perShard` in each of the open sessions' shards. */
function idsOverEveryShard(perShard: number): string[] {
  const byShard = new Map<number, string[]>();
  let filled = 0;
  while (filled < OPEN_SHARDS) {
    const id = randomUUID();
    const ids = byShard.get(shardOf(id, OPEN_SHARDS)) ?? [];
    if (ids.length === perShard) continue;
    ids.push(id);
    byShard.set(shardOf(id, OPEN_SHARDS), ids);
    if (ids.length === perShard) filled++;
  }
  return [...byShard.values()].flat();
}

describe('Accounting-On of a NAS with 300 open sessions', () => {
  it(
    'answers with each session closed or left to the sweep, and every session ends closed once with its usage as reported',
    async () => {
      const net = await givenNetwork(1, 60);
      const live = await givenSessions(net, 300, 1500);
      expect(await openCount(net)).toBe(300);

      // Closes start only inside the answer's budget, what is left goes to the sweep (the
      // fan-out's own test, test/unit/fan-out.test.ts, shows nothing starts past its deadline):
      // how many fit depends on the machine, that they add up does not.
      const outcome = await account(
        { status: 'Accounting-On', nasId: net.nasIds[0] as string, totalBytes: 0, sessionTimeS: 0 },
        Date.now(),
      );
      expect(outcome).toMatchObject({ closed: expect.any(Number), deferred: expect.any(Number) });
      const { closed, deferred } = outcome as { closed: number; deferred: number };
      expect(closed + deferred).toBe(300);

      // What the answer left, the next sweep finishes (none silent yet: only the restart's).
      const swept = await sweepSilentSessions(Date.now());
      expect(swept).toMatchObject({
        restart_closed: deferred,
        closed: 0,
        left: 0,
        restarts_left: 0,
        errors: 0,
      });
      const after = await sessionsOf(live);
      expect(after.every((s) => s.status === 'closed' && s.close_reason === 'nas_restart')).toBe(true);
      expect(after.every((s) => s.total_bytes === 1500)).toBe(true);
      expect(await usedBytes(net.codes)).toBe(300 * 1500);
      expect(await openCount(net)).toBe(0);
      expect(await openDevicesOfNas(net.nasIds[0] as string)).toEqual([]);
      expect(await pendingNasCloses(100)).toEqual([]);
    },
    HUNG,
  );

  it(
    'with no budget left, leaves them all to the sweep, which spares a session that reported since',
    async () => {
      process.env.RADIUS_NAS_CLOSE_BUDGET_MS = '0';
      resetConfig();
      const net = await givenNetwork(1, 20);
      const live = await givenSessions(net, 40, 100, Date.now() - 60_000);
      const nasId = net.nasIds[0] as string;

      const restartMs = Date.now() - 30_000;
      expect(
        await account({ status: 'Accounting-Off', nasId, totalBytes: 0, sessionTimeS: 0 }, restartMs),
      ).toEqual({
        closed: 0,
        deferred: 40,
      });
      expect(await pendingNasCloses(10)).toEqual([
        {
          nas_id: nasId,
          before: new Date(restartMs).toISOString(),
          reseller_id: net.resellerId,
          reason: 'nas_restart',
        },
      ]);
      // One session reports after the restart: it is alive after all.
      const alive = live[0] as Live;
      expect(await account(report(alive, 'Interim-Update', 700), Date.now())).toBe('stored');

      expect(await sweepSilentSessions(Date.now())).toMatchObject({
        restart_closed: 39,
        restarts_finished: 1,
        restarts_left: 0,
      });
      const after = await sessionsOf(live);
      expect(after.filter((s) => s.status === 'open').map((s) => s.id)).toEqual([alive.id]);
      expect(await usedBytes(net.codes)).toBe(40 * 100 + 600);
      expect(await openCount(net)).toBe(1);
      expect(await pendingNasCloses(100)).toEqual([]);
    },
    HUNG,
  );

  it(
    'twice at once, with Stops racing them, closes each session once and counts each byte once',
    async () => {
      const net = await givenNetwork(1, 10);
      const live = await givenSessions(net, 120, 1000);
      const nasId = net.nasIds[0] as string;
      const stopping = live.slice(0, 60);

      const on = () =>
        account({ status: 'Accounting-On', nasId, totalBytes: 0, sessionTimeS: 0 }, Date.now());
      const [a, b] = (await Promise.all([
        on(),
        on(),
        ...stopping.map((s) => account(report(s, 'Stop', 1800), Date.now())),
      ])) as { closed: number; deferred: number }[];
      const swept = await sweepSilentSessions(Date.now());

      const after = await sessionsOf(live);
      expect(after.every((s) => s.status === 'closed')).toBe(true);
      const byStop = after.filter((s) => s.close_reason === 'stop').length;
      // Every session closed by exactly one of them: the two restarts' counts and the Stops add up.
      expect((a?.closed ?? 0) + (b?.closed ?? 0) + byStop + swept.restart_closed).toBe(120);
      // A Stop that came after the close still counts its last bytes, once.
      for (const s of after) expect(s.total_bytes).toBe(stopping.some((x) => x.id === s.id) ? 1800 : 1000);
      expect(await usedBytes(net.codes)).toBe(60 * 1800 + 60 * 1000);
      expect(await openCount(net)).toBe(0);
    },
    HUNG,
  );
});

describe('the sweep', () => {
  it(
    'closes silent sessions in every shard, a page at a time, in one run, each once',
    async () => {
      // Three pages (2, 2, 1) of each of the 64 shards: a shard's next page joins the queue behind
      // the other shards'.
      const pageSize = 2;
      const net = await givenNetwork(16, 64);
      const live = await givenSessions(net, idsOverEveryShard(5), 500, Date.now() - 3600_000);
      expect(await openCount(net)).toBe(live.length);

      const result = await sweepSilentSessions(Date.now(), pageSize);
      expect(result).toMatchObject({ closed: live.length, left: 0, errors: 0 });

      const after = await sessionsOf(live);
      expect(after.every((s) => s.status === 'closed' && s.close_reason === 'stale')).toBe(true);
      expect(await usedBytes(net.codes)).toBe(live.length * 500);
      expect(await openCount(net)).toBe(0);
      // Nothing left: a second run closes nothing.
      expect(await sweepSilentSessions(Date.now(), pageSize)).toMatchObject({ closed: 0, left: 0 });
    },
    HUNG,
  );

  it(
    'out of budget, reports what it left, and the next runs finish it, each session closed once',
    async () => {
      const net = await givenNetwork(4, 50);
      const live = await givenSessions(net, 300, 200, Date.now() - 3600_000);
      const withBudget = (ms: string | undefined) => {
        if (ms === undefined) delete process.env.RADIUS_SWEEP_BUDGET_MS;
        else process.env.RADIUS_SWEEP_BUDGET_MS = ms;
        resetConfig();
      };

      // No time at all: nothing closed, all of it reported left.
      withBudget('0');
      expect(await sweepSilentSessions(Date.now())).toMatchObject({ closed: 0, left: 300 });
      // A short budget (how much it closes depends on the machine, none at all on a busy one):
      // whatever it closed, what it leaves is reported.
      withBudget('150');
      const short = await sweepSilentSessions(Date.now());
      expect(short.left).toBe(300 - short.closed);
      // The next run, with time enough, finishes it: each session closed once.
      withBudget(String(24 * 3600_000));
      const last = await sweepSilentSessions(Date.now());
      expect(last).toMatchObject({ left: 0, errors: 0 });
      expect(short.closed + last.closed).toBe(300);

      const after = await sessionsOf(live);
      expect(after.every((s) => s.status === 'closed')).toBe(true);
      expect(await openCount(net)).toBe(0);
      expect(await usedBytes(net.codes)).toBe(300 * 200);
    },
    HUNG,
  );
});
