import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import type { Country } from '../../functions/core/currency.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { handler as replicaRoute } from '../../functions/edge/edge-replica.js';
import { currentPublicStatus } from '../../functions/monitoring/dashboard.js';
import { handler as sweep } from '../../functions/radius/sweep.js';
import { noteHeard } from '../../functions/routers/heard.js';
import { register } from '../../functions/routers/routers.js';
import { Access } from '../../functions/store/access-codes.js';
import { type AlertStatus, listAlertsByStatus } from '../../functions/store/alerts.js';
import { edgeSyncs } from '../../functions/store/edge-syncs.js';
import { linkStates, linkUsual, putLinkUsual } from '../../functions/store/link-states.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getRouter, type RouterRecord } from '../../functions/store/routers.js';
import { getSession } from '../../functions/store/sessions.js';
import { SiteEntity } from '../../functions/store/sites.js';
import { accountingReport, paidCode } from '../support/access.js';
import { createTestTable } from '../support/db.js';
import { hotspotOf } from '../support/hotspots.js';
import { account } from '../support/region.js';

// A country whose international link is cut, told from a power cut (functions/radius/link-watch.ts),
// through the session sweep against DynamoDB Local: a town's power cut at night, one reseller
// silencing its own hotspots on purpose, a real cut with the country's edge silent, and a cut's
// end that the sessions it left open do not hold back. Each case on a table of its own.

beforeEach(async () => {
  await createTestTable();
});
afterEach(() => clock.reset());

const MIN = 60_000;
/** A day's hour in UTC. */
const at = (hhmm: string) => Date.parse(`2026-03-14T${hhmm}:00.000Z`);

/** The alerts of a site in one status (the platform's list, as the API reads it). */
const listSiteAlerts = async (site: string, status: AlertStatus) =>
  (await listAlertsByStatus(status)).filter((a) => a.site === site);

interface Hotspot {
  nasId: string;
  routerId: string;
  code: string;
  session: string;
}

/** A reseller of `country`. */
async function reseller(country: Country): Promise<string> {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: `R ${country}`, country });
  return resellerId;
}

let siteNumber = 0;
/**
 * A hotspot of `resellerId` with its router, and one session started at `startMs`: a site in
 * `city`, or the reseller's own hotspot (no city recorded).
 */
async function hotspot(resellerId: string, startMs: number, city?: string): Promise<Hotspot> {
  let nasId: string;
  if (city) {
    siteNumber += 1;
    nasId = `access_site_${randomUUID().slice(0, 8)}`;
    await Nas.put({
      nas_id: nasId,
      reseller_id: resellerId,
      reseller_name: 'R',
      vlan_id: 10,
      kind: 'site',
      site_number: siteNumber,
    });
    await SiteEntity.put({
      site_id: randomUUID(),
      reseller_id: resellerId,
      site_number: siteNumber,
      nas_id: nasId,
      ssid: `ACCESS R ${city}`,
      ap_ip: '10.0.0.2',
      city,
      latitude: 7.69,
      longitude: -5.03,
      created_at: new Date(startMs).toISOString(),
    });
  } else nasId = await hotspotOf(resellerId, 'access_cut');
  const { router } = await register({
    reseller_id: resellerId,
    name: nasId,
    nas_ids: [nasId],
    transport: 'radsec',
  });
  const code = paidCode(resellerId);
  await Access.put(code);
  const session = randomUUID();
  await account(accountingReport({ nasId }, code.code, session, 'Start'), startMs);
  await heard(router.router_id, startMs);
  return { nasId, routerId: router.router_id, code: code.code, session };
}

const heard = async (routerId: string, nowMs: number) =>
  noteHeard((await getRouter(routerId)) as RouterRecord, nowMs);

/** A hotspot still alive: its session reports at `nowMs`, its router heard. */
async function reports(h: Hotspot, nowMs: number, bytes = 1000): Promise<void> {
  await account(accountingReport({ nasId: h.nasId }, h.code, h.session, 'Interim-Update', bytes), nowMs);
  await heard(h.routerId, nowMs);
}

const runSweep = async (nowMs: number) => {
  clock.set(() => nowMs);
  return (await sweep()) as Record<string, number>;
};

const stateOf = async (country: Country) => (await linkStates()).find((s) => s.country === country)?.status;

/** An API Gateway event of an edge's replica request, with its token. */
const replicaRequest = (token: string) =>
  ({
    version: '2.0',
    routeKey: 'POST /api/v1/edge/replica',
    rawPath: '/api/v1/edge/replica',
    rawQueryString: '',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
    isBase64Encoded: false,
    requestContext: {
      http: { method: 'POST', path: '/api/v1/edge/replica', sourceIp: '192.0.2.7' },
      requestId: randomUUID(),
    },
  }) as unknown as APIGatewayProxyEventV2;
const context = { awsRequestId: 'r', functionName: 'f', getRemainingTimeInMillis: () => 5000 } as Context;

/** An edge fetches its replica at `nowMs` (the route records its sync). */
async function edgeFetches(token: string, nowMs: number): Promise<void> {
  clock.set(() => nowMs);
  const res = await replicaRoute(replicaRequest(token), context);
  expect(res.statusCode).toBe(200);
}

/**
 * Cameroon at `startMs`: six hotspots of four resellers in three cities, each with a session,
 * and one edge serving the four resellers (its token).
 */
async function cameroonWithEdge(startMs: number): Promise<{ token: string; hotspots: Hotspot[] }> {
  const resellers = [await reseller('CM'), await reseller('CM'), await reseller('CM'), await reseller('CM')];
  const { token } = await registerEdge({
    name: 'Douala',
    reseller_ids: resellers,
    addresses: ['192.0.2.9'],
    nowIso: new Date(startMs).toISOString(),
  });
  const cities = ['Douala', 'Yaoundé', 'Bafoussam', 'Douala', 'Yaoundé', 'Bafoussam'];
  const hotspots: Hotspot[] = [];
  for (const [i, city] of cities.entries())
    hotspots.push(await hotspot(resellers[i % 4] as string, startMs, city));
  return { token, hotspots };
}

describe('a power cut is not a cut link', () => {
  it("at night, three of a town's five hotspots silent (three resellers) is the town's power, not the country's link", async () => {
    // Prepare: 03:00 in Côte d'Ivoire, five hotspots with sessions, which is the night's usual;
    // three sites in Bouaké (three resellers), two elsewhere.
    const night = at('02:40');
    const usual = Array.from({ length: 24 }, () => null as number | null);
    usual[3] = 5;
    await putLinkUsual({ by_country: { CI: usual }, updated_at: new Date(night).toISOString() });
    const bouake = [
      await hotspot(await reseller('CI'), night, 'Bouaké'),
      await hotspot(await reseller('CI'), night, 'bouake '),
      await hotspot(await reseller('CI'), night, 'BOUAKÉ'),
    ];
    const elsewhere = [
      await hotspot(await reseller('CI'), night, 'Abidjan'),
      await hotspot(await reseller('CI'), night, 'San-Pédro'),
    ];
    for (const h of elsewhere) await reports(h, at('02:58'));

    // Act: the sweep at 03:00, when Bouaké's sessions are silent past their lease.
    const result = await runSweep(at('03:00'));

    // Assess: no cut, no alert, no notice; the town's silent sessions are closed as silent.
    expect(result.countries_cut).toBe(0);
    expect(await stateOf('CI')).toBeUndefined();
    expect(await listSiteAlerts('country:CI', 'active')).toHaveLength(0);
    expect((await currentPublicStatus()).notices).toBeUndefined();
    for (const h of bouake) expect((await getSession(h.session))?.status).toBe('closed');
    for (const h of elsewhere) expect((await getSession(h.session))?.status).toBe('open');
  }, 120_000);

  it("at night, three silent hotspots of three towns are measured against the night's usual, not against the two still heard", async () => {
    // Prepare: the country usually has twenty hotspots with traffic at 03:00; five now.
    const night = at('02:40');
    const usual = Array.from({ length: 24 }, () => null as number | null);
    usual[3] = 20;
    await putLinkUsual({ by_country: { CI: usual }, updated_at: new Date(night).toISOString() });
    const silent = [
      await hotspot(await reseller('CI'), night, 'Korhogo'),
      await hotspot(await reseller('CI'), night, 'Man'),
      await hotspot(await reseller('CI'), night),
    ];
    const alive = [await hotspot(await reseller('CI'), night), await hotspot(await reseller('CI'), night)];
    for (const h of alive) await reports(h, at('02:58'));

    // Act
    const result = await runSweep(at('03:00'));

    // Assess: 3 of the usual 20 is no cut (3 of the 5 heard would have been).
    expect(result.countries_cut).toBe(0);
    expect(await stateOf('CI')).toBeUndefined();
    for (const h of silent) expect((await getSession(h.session))?.status).toBe('closed');
  }, 120_000);

  it("one reseller's three hotspots silenced on purpose, in three cities, never make a national cut", async () => {
    // Prepare: the afternoon in Senegal; the red team's reseller and one honest one.
    const start = at('13:40');
    const red = await reseller('SN');
    const own = [
      await hotspot(red, start, 'Dakar'),
      await hotspot(red, start, 'Thiès'),
      await hotspot(red, start, 'Saint-Louis'),
    ];
    const honest = await hotspot(await reseller('SN'), start, 'Dakar');

    // Act: the three unplugged at 13:45, the other reporting; two sweeps.
    await reports(honest, at('13:58'));
    const first = await runSweep(at('14:00'));
    await reports(honest, at('14:03'));
    const second = await runSweep(at('14:05'));

    // Assess: 3 of 4 hotspots silent is enough silence, but one reseller's: no cut.
    expect([first.countries_cut, second.countries_cut]).toEqual([0, 0]);
    expect(await stateOf('SN')).toBeUndefined();
    expect(await listSiteAlerts('country:SN', 'active')).toHaveLength(0);
    for (const h of own) expect((await getSession(h.session))?.status).toBe('closed');
  }, 120_000);

  it('a country whose edge still syncs is not cut, however silent its routers', async () => {
    // Prepare: six hotspots of four resellers in three cities, their edge syncing every minute.
    const { token } = await cameroonWithEdge(at('18:40'));
    // The routers fall silent at 18:41 (an upstream ISP's fault); the edge, elsewhere, keeps syncing.
    for (const minute of ['18:50', '18:55', '19:00', '19:04']) await edgeFetches(token, at(minute));

    // Act
    const result = await runSweep(at('19:05'));

    // Assess: the edge reaches the region, so the link is up: no cut.
    expect(result.countries_cut).toBe(0);
    expect(await stateOf('CM')).toBeUndefined();
    expect((await edgeSyncs()).map((s) => s.synced_at)).toEqual([new Date(at('19:04')).toISOString()]);
  }, 120_000);
});

describe('a cut link', () => {
  it("is declared when the country's edge stops syncing as its routers fall silent, holds the sessions open, and ends when the edge syncs again though most sessions stay silent", async () => {
    // Prepare: 19:00 in Cameroon, six hotspots of four resellers in three cities, one edge.
    const start = at('18:40');
    const { token, hotspots } = await cameroonWithEdge(start);
    // Everyone reports and the edge syncs until the cable is cut at 18:50.
    for (const h of hotspots) await reports(h, at('18:49'));
    await edgeFetches(token, at('18:49'));
    // Senegal's hotspots keep reporting: not cut.
    const sn = [await hotspot(await reseller('SN'), start), await hotspot(await reseller('SN'), start)];
    for (const h of sn) await reports(h, at('19:03'));

    // Act: the sweep at 19:05, the edge silent for 16 minutes, the hotspots past their lease.
    const during = await runSweep(at('19:05'));

    // Assess: cut, one alert, the status page's line, the sessions left open.
    expect(during.countries_cut).toBe(1);
    expect(await stateOf('CM')).toBe('cut');
    expect(await stateOf('SN')).toBeUndefined();
    expect(await listSiteAlerts('country:CM', 'active')).toHaveLength(1);
    expect((await currentPublicStatus()).notices?.map((n) => n.message)).toEqual([
      'Cameroun : liaison internationale coupée depuis 19:49, les codes déjà achetés fonctionnent',
    ]);
    for (const h of hotspots) expect((await getSession(h.session))?.status).toBe('open');
    // A second sweep during the cut raises nothing more.
    await runSweep(at('19:30'));
    expect(await listSiteAlerts('country:CM', 'active')).toHaveLength(1);

    // The cable is repaired at 20:00: the edge syncs; two hotspots report, the four others' routers
    // restarted during the cut (their sessions are gone and stay silent).
    await edgeFetches(token, at('20:00'));
    for (const h of hotspots.slice(0, 2)) await reports(h, at('20:00'), 5000);
    const back = await runSweep(at('20:01'));

    // Assess: the cut ends though four sessions are silent; they stay open for the grace...
    expect(back.countries_cut).toBe(0);
    expect(await stateOf('CM')).toBe('up');
    expect(await listSiteAlerts('country:CM', 'active')).toHaveLength(0);
    expect((await currentPublicStatus()).notices).toBeUndefined();
    for (const h of hotspots) expect((await getSession(h.session))?.status).toBe('open');

    // ...then are closed as silent, and never declare a new cut (the two others keep reporting).
    for (const h of hotspots.slice(0, 2)) await reports(h, at('20:30'), 9000);
    const after = await runSweep(at('20:35'));
    expect(after.countries_cut).toBe(0);
    expect(await stateOf('CM')).toBe('up');
    for (const h of hotspots.slice(2)) expect((await getSession(h.session))?.status).toBe('closed');
    for (const h of hotspots.slice(0, 2)) expect((await getSession(h.session))?.status).toBe('open');
  }, 180_000);

  it('is declared from a silence spread over resellers and towns where there is no edge, takes the late reports once, and ends when its routers are heard again', async () => {
    // Prepare: the afternoon in Côte d'Ivoire, four hotspots of three resellers in three towns.
    const start = at('14:00');
    const r = [await reseller('CI'), await reseller('CI'), await reseller('CI')];
    const ci = [
      await hotspot(r[0] as string, start, 'Abidjan'),
      await hotspot(r[1] as string, start, 'Bouaké'),
      await hotspot(r[2] as string, start),
      await hotspot(r[0] as string, start, 'Yamoussoukro'),
    ];

    // Act: all silent from 14:00; the sweep at 14:20.
    const during = await runSweep(at('14:20'));

    // Assess
    expect(during.countries_cut).toBe(1);
    expect(await stateOf('CI')).toBe('cut');
    expect((await currentPublicStatus()).notices?.map((n) => n.message)).toEqual([
      "Côte d'Ivoire : liaison internationale coupée depuis 14:00, les codes déjà achetés fonctionnent",
    ]);

    // The link comes back: the routers resend their interims, each twice.
    const backAt = at('14:30');
    for (const h of ci) {
      for (const bytes of [10_000, 20_000, 30_000, 10_000, 20_000, 30_000])
        await account(
          accountingReport({ nasId: h.nasId }, h.code, h.session, 'Interim-Update', bytes),
          backAt,
        );
      await heard(h.routerId, backAt);
    }
    const after = await runSweep(backAt + MIN);

    // Assess: restored, the alert acknowledged, each session's usage charged to its code once.
    expect(after.countries_cut).toBe(0);
    expect(await stateOf('CI')).toBe('up');
    expect(await listSiteAlerts('country:CI', 'active')).toHaveLength(0);
    for (const h of ci) {
      const s = await getSession(h.session);
      expect(s?.status).toBe('open');
      expect(s?.total_bytes).toBe(30_000);
      expect((await Access.get({ code: h.code }))?.used_bytes).toBe(30_000);
    }
  }, 180_000);

  it('ends when a quarter of the hotspots silent at the cut are heard again, the others silent for good', async () => {
    // Prepare: eight hotspots of four resellers in four towns, cut at 14:00.
    const start = at('14:00');
    const r = [await reseller('BJ'), await reseller('BJ'), await reseller('BJ'), await reseller('BJ')];
    const towns = ['Cotonou', 'Porto-Novo', 'Parakou', 'Abomey'];
    const bj: Hotspot[] = [];
    for (let i = 0; i < 8; i++) bj.push(await hotspot(r[i % 4] as string, start, towns[i % 4]));
    expect((await runSweep(at('14:20'))).countries_cut).toBe(1);

    // Act: two of the eight come back (a quarter); six stay silent (their sessions ended at the routers).
    for (const h of bj.slice(0, 2)) await reports(h, at('15:00'));
    await runSweep(at('15:01'));

    // Assess
    expect(await stateOf('BJ')).toBe('up');
  }, 180_000);
});

describe('the ordinary silences', () => {
  it('is not a cut on a quiet night: sessions ended with their Stop leave nothing silent', async () => {
    const night = at('01:00');
    const hs = [
      await hotspot(await reseller('CI'), night, 'Abidjan'),
      await hotspot(await reseller('CI'), night, 'Bouaké'),
      await hotspot(await reseller('CI'), night, 'Man'),
      await hotspot(await reseller('CI'), night, 'Korhogo'),
    ];
    for (const h of hs)
      await account(accountingReport({ nasId: h.nasId }, h.code, h.session, 'Stop', 500), night + MIN);
    const result = await runSweep(at('04:00'));
    expect(result.countries_cut).toBe(0);
    expect((await linkStates()).filter((s) => s.status === 'cut')).toHaveLength(0);
  }, 120_000);

  it('is not a cut when one router loses power: its sessions are closed as silent', async () => {
    const start = at('10:00');
    const hs = [
      await hotspot(await reseller('SN'), start),
      await hotspot(await reseller('SN'), start),
      await hotspot(await reseller('SN'), start),
      await hotspot(await reseller('SN'), start),
    ];
    for (const h of hs.slice(1)) await reports(h, at('10:19'), 100);
    const result = await runSweep(at('10:20'));
    expect(result.countries_cut).toBe(0);
    expect(result.closed).toBeGreaterThanOrEqual(1);
    expect((await getSession(hs[0]?.session as string))?.status).toBe('closed');
    // The run learnt the hour's usual: four hotspots with traffic at 10:00 UTC (three heard, one silent).
    expect((await linkUsual())?.by_country.SN?.[10]).toBe(4);
  }, 120_000);
});
