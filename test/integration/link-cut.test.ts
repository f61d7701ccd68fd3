import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { currentPublicStatus } from '../../functions/monitoring/dashboard.js';
import { handler as sweep } from '../../functions/radius/sweep.js';
import { noteHeard } from '../../functions/routers/heard.js';
import { register } from '../../functions/routers/routers.js';
import { Access } from '../../functions/store/access-codes.js';
import { type AlertStatus, listAlertsByStatus } from '../../functions/store/alerts.js';
import { linkStates } from '../../functions/store/link-states.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getRouter, type RouterRecord } from '../../functions/store/routers.js';
import { getSession } from '../../functions/store/sessions.js';
import { accountingReport, paidCode } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { hotspotOf } from '../support/hotspots.js';
import { account } from '../support/region.js';

/** The alerts of a site in one status (the platform's list, as the API reads it). */
const listSiteAlerts = async (site: string, status: AlertStatus) =>
  (await listAlertsByStatus(status)).filter((a) => a.site === site);

// Issue 34, item 4: a country gone silent is told from a quiet night by its open sessions; the
// sweep leaves a cut country's sessions open, takes their late reports once, and the status page
// says so while it lasts.

useTestTable();
afterEach(() => clock.reset());

const MIN = 60_000;
const t0 = Date.parse('2026-03-14T14:00:00.000Z');

interface Hotspot {
  nasId: string;
  router: RouterRecord;
  code: string;
  session: string;
}

/** A reseller of `country` with `n` hotspots, each with a router heard and one session started at `at`. */
async function countryWithSessions(country: 'CI' | 'SN', n: number, at: number): Promise<Hotspot[]> {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: `R ${country}`, country });
  const out: Hotspot[] = [];
  for (let i = 0; i < n; i++) {
    const nasId = await hotspotOf(resellerId, `cut_${country}`);
    const { router } = await register({
      reseller_id: resellerId,
      name: `R${i}`,
      nas_ids: [nasId],
      transport: 'radsec',
    });
    const code = paidCode(resellerId);
    await Access.put(code);
    const session = randomUUID();
    await account(accountingReport({ nasId }, code.code, session, 'Start'), at);
    const read = (await getRouter(router.router_id)) as RouterRecord;
    await noteHeard(read, at);
    out.push({
      nasId,
      router: (await getRouter(router.router_id)) as RouterRecord,
      code: code.code,
      session,
    });
  }
  return out;
}

const runSweep = async (at: number) => {
  clock.set(() => at);
  return (await sweep()) as Record<string, number>;
};

describe('a country whose hotspots fall silent with sessions open', () => {
  it('is declared cut, its sessions stay open, the status page says so, and its return clears it', async () => {
    const ci = await countryWithSessions('CI', 4, t0);
    // Senegal's hotspots keep reporting: not cut.
    const sn = await countryWithSessions('SN', 2, t0);
    const later = t0 + 20 * MIN;
    for (const h of sn) {
      await account(
        accountingReport({ nasId: h.nasId }, h.code, h.session, 'Interim-Update', 1000),
        later - MIN,
      );
      await noteHeard((await getRouter(h.router.router_id)) as RouterRecord, later - MIN);
    }

    const during = await runSweep(later);
    expect(during.countries_cut).toBe(1);
    const states = await linkStates();
    expect(states.map((s) => [s.country, s.status])).toEqual([['CI', 'cut']]);
    for (const h of ci) expect((await getSession(h.session))?.status).toBe('open');
    const alerts = await listSiteAlerts('country:CI', 'active');
    expect(alerts).toHaveLength(1);
    const status = await currentPublicStatus();
    expect(status.notices?.map((n) => n.message)).toEqual([
      "Côte d'Ivoire : liaison internationale coupée depuis 14:00, les codes déjà achetés fonctionnent",
    ]);

    // The link comes back: the edge's journal replays each session's interims in order, twice.
    const back = later + 10 * MIN;
    clock.set(() => back);
    for (const h of ci) {
      for (const pass of [1, 2]) {
        for (const bytes of [10_000, 20_000, 30_000]) {
          await account(
            accountingReport({ nasId: h.nasId }, h.code, h.session, 'Interim-Update', bytes),
            back,
          );
        }
        expect(pass).toBeGreaterThan(0);
      }
      await noteHeard((await getRouter(h.router.router_id)) as RouterRecord, back);
    }
    const after = await runSweep(back + MIN);
    expect(after.countries_cut).toBe(0);
    expect((await linkStates()).find((s) => s.country === 'CI')?.status).toBe('up');
    expect(await listSiteAlerts('country:CI', 'active')).toHaveLength(0);
    expect((await currentPublicStatus()).notices).toBeUndefined();
    for (const h of ci) {
      const s = await getSession(h.session);
      expect(s?.status).toBe('open');
      expect(s?.total_bytes).toBe(30_000);
      // Charged to the code once, replayed twice.
      expect((await Access.get({ code: h.code }))?.used_bytes).toBe(30_000);
    }
  }, 120_000);

  it('is not a cut on a quiet night: sessions ended with their Stop leave nothing silent', async () => {
    // Two days earlier than the first case: its sessions are not silent then (one table per file).
    const night = t0 - 2 * 24 * 60 * MIN;
    const ci = await countryWithSessions('CI', 4, night);
    for (const h of ci)
      await account(accountingReport({ nasId: h.nasId }, h.code, h.session, 'Stop', 500), night + MIN);
    const result = await runSweep(night + 3 * 60 * MIN);
    expect(result.countries_cut).toBe(0);
    expect((await linkStates()).filter((s) => s.status === 'cut')).toHaveLength(0);
  });

  it('is not a cut when one router loses power: its sessions are closed as silent', async () => {
    const base = t0 - 4 * 24 * 60 * MIN;
    const sn = await countryWithSessions('SN', 4, base);
    const later = base + 20 * MIN;
    for (const h of sn.slice(1)) {
      await account(
        accountingReport({ nasId: h.nasId }, h.code, h.session, 'Interim-Update', 100),
        later - MIN,
      );
      await noteHeard((await getRouter(h.router.router_id)) as RouterRecord, later - MIN);
    }
    const result = await runSweep(later);
    expect(result.countries_cut).toBe(0);
    expect(result.closed).toBeGreaterThanOrEqual(1);
    expect((await getSession(sn[0]?.session as string))?.status).toBe('closed');
  });
});
