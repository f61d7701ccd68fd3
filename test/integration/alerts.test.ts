import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { AppError } from '../../functions/core/errors.js';
import type { Principal } from '../../functions/core/principal.js';
import { acknowledge, listAlerts } from '../../functions/monitoring/alerts.js';
import { overview } from '../../functions/monitoring/dashboard.js';
import { Access } from '../../functions/store/access-codes.js';
import { closeIncident, listAlertsByStatus, raiseAlertOnce } from '../../functions/store/alerts.js';
import { type CanaryRun, countRunInDay } from '../../functions/store/canary.js';
import { createTestTable } from '../support/db.js';
import { account } from '../support/region.js';
import { drainStreams } from '../support/streams.js';
import { giveSite } from './monitoring-fixtures.js';

const exp = Math.floor(Date.now() / 1000) + 900;
const admin: Principal = { sub: randomUUID(), role: 'admin', ref: 'SUB-1', exp };
const reseller = (resellerId: string): Principal => ({
  sub: randomUUID(),
  role: 'reseller',
  ref: 'SUB-2',
  resellerId,
  exp,
});
const subscriber: Principal = { sub: randomUUID(), role: 'subscriber', ref: 'SUB-3', exp };

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );

let t0: number;
/** Raises an alert for a site, one second after the previous one. */
async function alertAt(site: string) {
  t0 += 1000;
  const alert = await raiseAlertOnce({
    type: 'SLA_DEGRADED',
    severity: 'P1',
    site,
    ts: clock.iso(t0),
    message: 'test',
  });
  if (!alert) throw new Error('not raised');
  await closeIncident(site, 'SLA_DEGRADED');
  return alert;
}

beforeEach(async () => {
  await createTestTable();
  t0 = Date.parse('2025-03-01T00:00:00Z');
});
afterEach(() => clock.reset());

describe('acknowledging an alert', () => {
  it('sets acked, acked_by (the caller) and acked_at, and moves it from the active to the acked list', async () => {
    const alert = await alertAt('access_a');
    clock.set(() => Date.parse('2025-03-02T10:00:00Z'));
    const acked = await acknowledge(admin, alert.id);
    expect(acked).toMatchObject({
      id: alert.id,
      acked: true,
      acked_by: admin.sub,
      acked_at: '2025-03-02T10:00:00.000Z',
    });
    expect((await listAlerts(admin, 'active', 1, 20)).total).toBe(0);
    expect((await listAlerts(admin, 'acked', 1, 20)).items.map((a) => a.id)).toEqual([alert.id]);
  });

  it('changes nothing the second time, whoever acks it', async () => {
    const alert = await alertAt('access_a');
    const first = await acknowledge(admin, alert.id);
    clock.set(() => Date.now() + 60_000);
    const second = await acknowledge(admin, alert.id);
    expect(second).toEqual(first);
  });

  it('records one ack when ten arrive at once', async () => {
    const alert = await alertAt('access_a');
    const results = await Promise.all(Array.from({ length: 10 }, () => acknowledge(admin, alert.id)));
    expect(new Set(results.map((r) => r.acked_by)).size).toBe(1);
    expect(new Set(results.map((r) => r.acked_at)).size).toBe(1);
  });

  it('answers ERR_NOT_FOUND for an unknown id', async () => {
    expect(await codeOf(acknowledge(admin, randomUUID()))).toBe('ERR_NOT_FOUND');
  });

  it("lets a reseller ack its own sites' alerts and refuses another reseller's", async () => {
    const owner = randomUUID();
    await giveSite(owner, 'access_owned');
    const mine = await alertAt('access_owned');
    const theirs = await alertAt('access_someone_else');
    expect(await codeOf(acknowledge(reseller(owner), mine.id))).toBe('ok');
    expect(await codeOf(acknowledge(reseller(owner), theirs.id))).toBe('ERR_FORBIDDEN');
    expect((await listAlertsByStatus('active')).map((a) => a.id)).toEqual([theirs.id]);
  });
});

describe('listing alerts', () => {
  it('gives an admin every alert, newest first, filtered by status', async () => {
    const a = await alertAt('access_a');
    const b = await alertAt('access_b');
    const c = await alertAt('access_c');
    await acknowledge(admin, b.id);
    expect((await listAlerts(admin, 'all', 1, 20)).items.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect((await listAlerts(admin, 'active', 1, 20)).items.map((x) => x.id)).toEqual([c.id, a.id]);
    expect((await listAlerts(admin, 'acked', 1, 20)).items.map((x) => x.id)).toEqual([b.id]);
  });

  it("gives a reseller only its own sites' alerts", async () => {
    const owner = randomUUID();
    await giveSite(owner, 'access_shop_s1');
    await giveSite(owner, 'access_shop_s2');
    const s1 = await alertAt('access_shop_s1');
    await alertAt('access_other');
    const s2 = await alertAt('access_shop_s2');
    await acknowledge(admin, s1.id);
    const all = await listAlerts(reseller(owner), 'all', 1, 20);
    expect(all.items.map((x) => x.id)).toEqual([s2.id, s1.id]);
    expect(all.total).toBe(2);
    expect((await listAlerts(reseller(owner), 'active', 1, 20)).items.map((x) => x.id)).toEqual([s2.id]);
    expect((await listAlerts(reseller(randomUUID()), 'all', 1, 20)).total).toBe(0);
  });

  it('pages with total and pages', async () => {
    for (let i = 0; i < 5; i++) await alertAt(`access_${i}`);
    const page = await listAlerts(admin, 'all', 2, 2);
    expect(page).toMatchObject({ total: 5, page: 2, pages: 3 });
    expect(page.items).toHaveLength(2);
    expect(page.items[0]?.site).toBe('access_2');
  });

  it('refuses a subscriber', async () => {
    expect(await codeOf(listAlerts(subscriber, 'all', 1, 20))).toBe('ERR_FORBIDDEN');
  });
});

describe('the monitoring overview', () => {
  /** A RADIUS session opened (accounting Start) on a code of this reseller and buyer. */
  async function sessionOf(resellerId: string, subscriberId?: string) {
    const code = randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase();
    await Access.put({
      code,
      reseller_id: resellerId,
      subscriber_id: subscriberId,
      source: 'payment',
      source_id: randomUUID(),
      forfait_id: randomUUID(),
      offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 1, mir_kbps: 1, max_devices: 1 },
      created_at: new Date(clock.now()).toISOString(),
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    });
    const report = { status: 'Start', uniqueId: randomUUID(), userName: code, nasId: 'access_x' } as const;
    await account({ ...report, totalBytes: 0, sessionTimeS: 0 }, clock.now());
  }
  const runOn = (at: string, overall_status: CanaryRun['overall_status']): CanaryRun => ({
    id: randomUUID(),
    at,
    overall_status,
    tests: [],
  });

  it("counts open RADIUS sessions: the platform's for an admin, its own for a reseller and a subscriber", async () => {
    // A table of its own with the stream, which the session counts consumer reads.
    await createTestTable({ streams: true });
    const resellerId = randomUUID();
    const buyer = randomUUID();
    const before = (await overview(admin)).sessions_active;
    await sessionOf(resellerId, buyer);
    await sessionOf(resellerId);
    await sessionOf(randomUUID());
    // Counted by the table's stream consumer, as it runs after the Starts.
    await drainStreams();
    expect((await overview(admin)).sessions_active).toBe(before + 3);
    expect((await overview(reseller(resellerId))).sessions_active).toBe(2);
    const subscriberOverview = await overview({ ...subscriber, sub: buyer });
    expect(subscriberOverview.sessions_active).toBe(1);
    // A subscriber sees the service levels, never the platform's alerts.
    expect(subscriberOverview.alerts_active).toBe(0);
  });

  it('computes uptime and SLA over the runs of the last 30 days only', async () => {
    clock.set(() => Date.parse('2025-03-31T12:00:00Z'));
    for (const s of ['healthy', 'healthy', 'degraded', 'down'] as const)
      await countRunInDay(runOn('2025-03-31T01:00:00.000Z', s));
    await countRunInDay(runOn('2025-03-02T01:00:00.000Z', 'healthy'));
    // 30 days ago: outside the window.
    await countRunInDay(runOn('2025-03-01T23:00:00.000Z', 'down'));
    const o = await overview(admin);
    expect(o.runs_30d).toBe(5);
    expect(o.uptime_pct).toBe(60);
    expect(o.sla_pct).toBe(80);
  });

  it("counts active alerts: all for an admin, its own sites' for a reseller", async () => {
    const owner = randomUUID();
    await giveSite(owner, 'access_mine');
    const mine = await alertAt('access_mine');
    await alertAt('access_mine_too');
    await alertAt('access_other');
    await acknowledge(admin, mine.id);
    await alertAt('access_mine');
    expect((await overview(admin)).alerts_active).toBe(3);
    expect((await overview(reseller(owner))).alerts_active).toBe(1);
  });

  it('answers zeros on an empty platform', async () => {
    expect(await overview(subscriber)).toEqual({
      sessions_active: 0,
      uptime_pct: 0,
      alerts_active: 0,
      sla_pct: 0,
      runs_30d: 0,
    });
  });
});
