import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { runCanary } from '../../functions/monitoring/canary.js';
import { CHECK_NAMES } from '../../functions/monitoring/checks/types.js';
import { canaryStatus } from '../../functions/monitoring/dashboard.js';
import type { Alert } from '../../functions/store/alerts.js';
import { listAlertsByStatus } from '../../functions/store/alerts.js';
import { getCanaryState, listDays, listRecentRuns } from '../../functions/store/canary.js';
import { getDnsStatus } from '../../functions/store/dns-status.js';
import { createTestTable } from '../support/db.js';
import { useLocalServer } from '../support/http.js';
import {
  DATA_BYTES,
  type Peer,
  PORTAL_MARKER,
  startFreeRadius,
  startUnbound,
  startWebPeer,
  type WebPeer,
} from '../support/peers.js';

/** What a test may give the canary in place of its own. */
type CanaryDeps = NonNullable<Parameters<typeof runCanary>[0]>;
type CanaryTargets = NonNullable<CanaryDeps['targets']>;

// Whole runs against real peers: Unbound, FreeRADIUS, a web server, and the API's own status
// route on the real local server, storing into DynamoDB Local.
const SINKHOLE = '10.66.0.1';
const RADIUS_SECRET = 'run-shared-secret-0123';
const PASSWORD = 'run-password-4567';
const SITE = 'access_canary_site';

const server = useLocalServer();
let unbound: Peer;
let radius: Peer;
let web: WebPeer;

beforeAll(async () => {
  [unbound, radius, web] = await Promise.all([
    startUnbound({ blocked: { 'blocked.canary.test': SINKHOLE }, staticZones: ['canary.test'] }),
    startFreeRadius({ secret: RADIUS_SECRET, users: { canary: PASSWORD } }),
    startWebPeer(),
  ]);
});
afterAll(async () => {
  await Promise.all([unbound?.stop(), radius?.stop(), web?.stop()]);
});

/** The wait of a check that gets its answer: how soon a busy machine answers is not what is tested. */
const ANSWERED_MS = 30_000;

function healthyTargets(): CanaryTargets {
  return {
    dns: {
      server: `127.0.0.1:${unbound.port}`,
      name: 'blocked.canary.test',
      sinkholeIp: SINKHOLE,
      timeoutMs: ANSWERED_MS,
    },
    api: { url: `${server.url()}/api/v1/monitoring/status`, timeoutMs: ANSWERED_MS },
    radius: { host: '127.0.0.1', port: radius.port, user: 'canary', nasId: SITE, timeoutMs: ANSWERED_MS },
    portal: { url: web.url('/portal'), marker: PORTAL_MARKER, timeoutMs: ANSWERED_MS },
    data: { url: web.url('/data'), bytes: DATA_BYTES, timeoutMs: ANSWERED_MS },
  };
}

/** The targets with one part broken; fast failures only, so the sequences stay quick. */
const broken = (change: (t: CanaryTargets) => void): CanaryTargets => {
  const t = healthyTargets();
  change(t);
  return t;
};
const portalDown = () => broken((t) => (t.portal.url = web.url('/portal-500')));

let notified: { alert: Alert; context: Record<string, unknown> }[];
let dnsReports: { healthy: boolean; at: string }[];
let now: number;

/** One run at a time one minute later than the previous, with the captured notifier. */
async function run(targets: CanaryTargets, over: Partial<CanaryDeps> = {}) {
  now += 60_000;
  const at = now;
  clock.set(() => at);
  return runCanary({
    targets,
    radiusSecrets: async () => ({ sharedSecret: RADIUS_SECRET, password: PASSWORD }),
    site: SITE,
    alertAfter: 3,
    notify: async (alert, context) => {
      notified.push({ alert, context });
    },
    reportDns: async (healthy, at) => {
      dnsReports.push({ healthy, at });
    },
    ...over,
  });
}

beforeEach(async () => {
  // A fresh table per test: the canary's state is one item per table.
  await createTestTable();
  notified = [];
  dnsReports = [];
  now = Date.now();
});
afterEach(() => clock.reset());

describe('a canary run', () => {
  it('is healthy when the five checks pass against the real peers, and is stored as the latest run', async () => {
    const { run: result, consecutive_fails } = await run(healthyTargets());
    expect(result.tests.map((t) => [t.name, t.success, t.error])).toEqual(
      CHECK_NAMES.map((n) => [n, true, undefined]),
    );
    expect(result.overall_status).toBe('healthy');
    expect(consecutive_fails).toBe(0);
    const status = await canaryStatus();
    expect(status).toMatchObject({ last_run: result.at, consecutive_fails: 0, overall_status: 'healthy' });
    expect(status.tests.map((t) => t.name)).toEqual([...CHECK_NAMES]);
    for (const t of status.tests) expect(Number.isInteger(t.latency_ms)).toBe(true);
    expect(dnsReports).toEqual([{ healthy: true, at: result.at }]);
  });

  it('is degraded when the blocked name is NXDOMAIN, and reports Unbound unhealthy', async () => {
    const { run: result } = await run(broken((t) => (t.dns.name = 'unlisted.canary.test')));
    expect(result.overall_status).toBe('degraded');
    expect(result.tests.find((t) => t.name === 'dns_sinkhole')).toMatchObject({
      success: false,
      error: 'nxdomain',
    });
    expect(dnsReports).toEqual([{ healthy: false, at: result.at }]);
  });

  it("sets the DNS status record's unbound_healthy from the DNS check", async () => {
    const direct = (targets: CanaryTargets) =>
      runCanary({
        targets,
        radiusSecrets: async () => ({ sharedSecret: RADIUS_SECRET, password: PASSWORD }),
        site: SITE,
        alertAfter: 3,
        notify: async () => undefined,
      });
    await direct(healthyTargets());
    expect((await getDnsStatus())?.unbound_healthy).toBe(true);
    await direct(broken((t) => (t.dns.sinkholeIp = '10.66.0.2')));
    expect((await getDnsStatus())?.unbound_healthy).toBe(false);
  });

  it('is down when RADIUS rejects the canary account', async () => {
    const { run: result } = await run(healthyTargets(), {
      radiusSecrets: async () => ({ sharedSecret: RADIUS_SECRET, password: 'wrong-password' }),
    });
    expect(result.overall_status).toBe('down');
    expect(result.tests.find((t) => t.name === 'radius_auth')).toMatchObject({
      success: false,
      error: 'access_reject',
    });
  });

  it('is degraded on a truncated download, with every other check passing', async () => {
    const { run: result } = await run(broken((t) => (t.data.url = web.url('/data-truncated'))));
    expect(result.overall_status).toBe('degraded');
    expect(result.tests.filter((t) => !t.success).map((t) => [t.name, t.error])).toEqual([
      ['data_transfer', 'truncated'],
    ]);
  });

  it('keeps the history and counts each run in its day', async () => {
    await run(healthyTargets());
    await run(portalDown());
    const runs = await listRecentRuns(10);
    expect(runs.map((r) => r.overall_status)).toEqual(['degraded', 'healthy']);
    const days = await listDays('2000-01-01');
    expect(days.reduce((a, d) => a + d.runs, 0)).toBe(2);
    expect(days.reduce((a, d) => a + d.healthy_runs, 0)).toBe(1);
    expect(days.reduce((a, d) => a + d.up_runs, 0)).toBe(2);
  });
});

describe('the SLA_DEGRADED alert', () => {
  it('is raised once on the third failed run in a row, not on the first two nor on the fourth', async () => {
    const streak: (number | undefined)[] = [];
    for (let i = 1; i <= 4; i++) {
      const out = await run(portalDown());
      streak.push(out.consecutive_fails);
      expect(out.alert !== undefined, `run ${i}`).toBe(i === 3);
    }
    expect(streak).toEqual([1, 2, 3, 4]);
    const active = await listAlertsByStatus('active');
    expect(active).toHaveLength(1);
    expect(active[0]).toMatchObject({ type: 'SLA_DEGRADED', severity: 'P1', site: SITE, acked: false });
    expect(active[0]?.message).toContain('portal_access');
    expect(notified).toHaveLength(1);
    expect(notified[0]?.alert.id).toBe(active[0]?.id);
    expect(notified[0]?.context).toMatchObject({ consecutive_fails: 3, failing_checks: ['portal_access'] });
  });

  it('resets the streak on a healthy run, and raises a new alert after three more failures', async () => {
    for (let i = 0; i < 3; i++) await run(portalDown());
    const recovered = await run(healthyTargets());
    expect(recovered.consecutive_fails).toBe(0);
    // The incident's marker (INCIDENT#<site>#<type>, functions/store/alerts.ts) is gone.
    const marker = await ddb().send(
      new GetCommand({
        TableName: tableName(),
        Key: { pk: `INCIDENT#${SITE}#SLA_DEGRADED`, sk: 'INCIDENT' },
        ConsistentRead: true,
      }),
    );
    expect(marker.Item).toBeUndefined();
    expect((await getCanaryState())?.consecutive_fails).toBe(0);

    const again: Awaited<ReturnType<typeof run>>[] = [];
    for (let i = 0; i < 3; i++) again.push(await run(portalDown()));
    expect(again.map((o) => o.alert !== undefined)).toEqual([false, false, true]);
    expect(await listAlertsByStatus('active')).toHaveLength(2);
    expect(notified).toHaveLength(2);
  });

  it('is not raised twice by failed runs that overlap', async () => {
    await run(portalDown());
    await run(portalDown());
    // Six runs at once, all failing: whichever reaches the threshold first raises it.
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => run(portalDown())));
    expect(outcomes.filter((o) => o.alert).length).toBe(1);
    expect(await listAlertsByStatus('active')).toHaveLength(1);
    expect(notified).toHaveLength(1);
  });

  it('stays stored and listed when notifying operations fails', async () => {
    const failingNotify = async () => {
      throw new Error('SNS is down');
    };
    let last: Awaited<ReturnType<typeof run>> | undefined;
    for (let i = 0; i < 3; i++) last = await run(portalDown(), { notify: failingNotify });
    expect(last?.alert).toBeDefined();
    expect(await listAlertsByStatus('active')).toHaveLength(1);
  });

  it('counts a run whose every check fails as down, and raises the alert on the third', async () => {
    const nothing: CanaryTargets = {
      dns: { server: '', name: '', sinkholeIp: '', timeoutMs: 500 },
      api: { url: '', timeoutMs: 500 },
      radius: { host: '', port: 1812, user: 'canary', nasId: SITE, timeoutMs: 500 },
      portal: { url: '', marker: '', timeoutMs: 500 },
      data: { url: '', bytes: 0, timeoutMs: 500 },
    };
    const outs: Awaited<ReturnType<typeof run>>[] = [];
    for (let i = 0; i < 3; i++) outs.push(await run(nothing));
    expect(outs.map((o) => o.run.overall_status)).toEqual(['down', 'down', 'down']);
    expect(outs[0]?.run.tests.every((t) => t.error === 'not_configured')).toBe(true);
    expect(outs[2]?.alert).toBeDefined();
  });
});
