import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFreeRadius, startFreeRadius } from '../../bin/local/freeradius.js';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { startEdge } from '../../functions/edge-service/service.js';
import { currentPublicStatus } from '../../functions/monitoring/dashboard.js';
import { handler as sweep } from '../../functions/radius/sweep.js';
import { frontTls, register } from '../../functions/routers/routers.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { type AlertStatus, listAlertsByStatus } from '../../functions/store/alerts.js';
import { edgeLinksOf, revokeEdge } from '../../functions/store/edges.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getSession } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { type LinkProxy, linkProxy } from '../support/edge.js';
import { useLocalServer } from '../support/http.js';
import { type RadiusAttributes, radclient } from '../support/radius.js';

/** The alerts of a site in one status (the platform's list, as the API reads it). */
const listSiteAlerts = async (site: string, status: AlertStatus) =>
  (await listAlertsByStatus(status)).filter((a) => a.site === site);

// Issue 34, item 6: the cut, on loopback. The region (the real local API on its own table) is
// reached from the edge through a proxy that can drop everything, as a cut cable does; routers
// (radclient) keep talking to the edge's FreeRADIUS, the shipped configuration, whose API is the
// edge's service (functions/edge-service/service.ts). Codes sold before the cut log in, accounting is
// journaled and replayed once, and the region sees the country go silent and come back.

// The region: its API (the edge's rows) and its front's service (the front's rows).
const server = useLocalServer({ front: true });
let link: LinkProxy;
let service: Awaited<ReturnType<typeof startEdge>>;
let radius: RunningFreeRadius;
const localSecret = `edge-local-${randomUUID()}`;
const resellerId = randomUUID();
const nasId = `access_cut_${randomUUID().slice(0, 8)}`;
const routerIp = '127.31.0.7';
let routerSecret = '';
let edgeId = '';
let edgeToken = '';

beforeAll(async () => {
  // One hotspot of one reseller is enough to call a cut in this test's country (the defaults need
  // three, of three resellers in three areas: functions/radius/link-watch.ts).
  process.env.RADIUS_LINK_CUT_MIN_NAS = '1';
  process.env.RADIUS_LINK_CUT_MIN_SPREAD = '1';
  resetConfig();
  link = await linkProxy(server.url());

  await recordReseller({ resellerId, name: 'Maquis Awa', country: 'CI' });
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Maquis Awa',
    vlan_id: 10,
    kind: 'vlan',
  });
  const { credentials } = await register({
    reseller_id: resellerId,
    name: 'Routeur du maquis',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: routerIp,
  });
  routerSecret = (credentials as { secret: string }).secret;
  const { edge, token } = await registerEdge({
    name: 'Abidjan',
    reseller_ids: [resellerId],
    addresses: ['192.0.2.34'],
    nowIso: clock.iso(),
  });
  edgeId = edge.edge_id;
  edgeToken = token;
  service = await startEdge({
    regionUrl: link.url,
    token,
    localSecret,
    dataDir: mkdtempSync(join(tmpdir(), 'hotspot-edge-data-')),
    // Longer than the region takes on a busy machine, shorter than FreeRADIUS waits for the edge.
    forwardTimeoutMs: 4000,
    probeMs: 100,
  });
  // FreeRADIUS waits 8 s for the edge (run.sh's RADIUS_API_TIMEOUT), which waits 4 s for the region.
  const timeout = process.env.RADIUS_API_TIMEOUT;
  process.env.RADIUS_API_TIMEOUT = '8';
  radius = await startFreeRadius({
    apiUrl: service.url,
    apiSecret: localSecret,
    tls: await frontTls('localhost'),
    // Forgotten within a second: during the cut, the edge answers FreeRADIUS's client lookups.
    clientLifetimeS: 1,
  });
  if (timeout === undefined) delete process.env.RADIUS_API_TIMEOUT;
  else process.env.RADIUS_API_TIMEOUT = timeout;
});

afterAll(async () => {
  await radius?.stop();
  await service?.close();
  await link?.close();
  delete process.env.RADIUS_LINK_CUT_MIN_NAS;
  delete process.env.RADIUS_LINK_CUT_MIN_SPREAD;
  clock.reset();
});

const asRouter = {
  auth: (attrs: RadiusAttributes) =>
    radclient(
      'auth',
      {
        'Message-Authenticator': '0x00',
        'NAS-Identifier': nasId,
        ...attrs,
        'Packet-Src-IP-Address': routerIp,
      },
      { port: radius.authPort, secret: routerSecret, timeoutS: 12 },
    ),
  acct: (attrs: RadiusAttributes) =>
    radclient(
      'acct',
      { 'NAS-Identifier': nasId, ...attrs, 'Packet-Src-IP-Address': routerIp },
      { port: radius.acctPort, secret: routerSecret, timeoutS: 12 },
    ),
};

/** The router's running totals of a session, as it reports them. */
const report = (code: AccessCode, sessionId: string, mac: string, status: string, bytes: number) =>
  asRouter.acct({
    'Acct-Status-Type': status,
    'User-Name': code.code,
    'Acct-Session-Id': sessionId,
    'Calling-Station-Id': mac,
    'Acct-Input-Octets': Math.floor(bytes / 4),
    'Acct-Output-Octets': bytes - Math.floor(bytes / 4),
    'Acct-Session-Time': 60,
  });

const login = (code: string, mac: string) =>
  asRouter.auth({ 'User-Name': code, 'User-Password': code, 'Calling-Station-Id': mac });

/** The region's id of a journaled report's session (FreeRADIUS's Acct-Unique-Session-Id). */
const sessionIdOf = (body: Record<string, unknown>) =>
  (body['Acct-Unique-Session-Id'] as { value: string[] }).value[0] as string;

describe('a cut of the international link, with an edge in the country', () => {
  it('keeps codes sold before the cut working, journals accounting and replays it once, and the region sees the silence', async () => {
    // Before the cut: a paid code, a voucher in stock (never used), both in the replica, used or not.
    const inUse = paidCode(resellerId, { max_devices: 1 });
    await Access.put(inUse);
    const stock: AccessCode = {
      ...paidCode(resellerId, { duration_hours: 2 }),
      source: 'voucher',
      voucher_status: 'active',
      currency: 'XOF',
    };
    await Access.put(stock);
    expect(await service.sync()).toBe(true);
    expect(service.state.replica?.codes.map((c) => c.code).sort()).toEqual([inUse.code, stock.code].sort());

    // The paid code logs in through the edge while the region answers: forwarded, recorded there.
    expect((await login(inUse.code, '02:00:00:00:34:01')).code).toBe('Access-Accept');
    expect((await report(inUse, 'S-A', '02:00:00:00:34:01', 'Start', 0)).code).toBe('Accounting-Response');
    expect((await report(inUse, 'S-A', '02:00:00:00:34:01', 'Interim-Update', 100_000)).code).toBe(
      'Accounting-Response',
    );
    // The next sync reads the changes only: the code's first use.
    expect(await service.sync()).toBe(true);
    expect(service.state.replica?.codes.map((c) => c.code).sort()).toEqual([inUse.code, stock.code].sort());
    const before = await getAccessCode(inUse.code);
    expect(before?.used_bytes).toBe(100_000);

    // The cut. A code sold now never reaches the edge.
    link.setCut(true);
    const soldAfter = paidCode(resellerId);
    await Access.put(soldAfter);
    const down = once(service.events, 'link');
    // The session in progress keeps reporting: answered by the edge, journaled.
    expect((await report(inUse, 'S-A', '02:00:00:00:34:01', 'Interim-Update', 300_000)).code).toBe(
      'Accounting-Response',
    );
    expect(await down).toEqual(['down']);
    // The voucher from stock logs in (its clock starts here), a second device of the one-device
    // code is refused at this edge, the code sold after the cut is refused with the cut's message.
    const voucher = await login(stock.code, '02:00:00:00:34:02');
    expect(voucher.code).toBe('Access-Accept');
    expect(Number(voucher.attributes['Session-Timeout']?.[0])).toBeLessThanOrEqual(2 * 3600);
    expect((await login(inUse.code, '02:00:00:00:34:03')).code).toBe('Access-Reject');
    const refused = await login(soldAfter.code, '02:00:00:00:34:04');
    expect(refused.code).toBe('Access-Reject');
    expect(refused.attributes['Reply-Message']?.[0]).toBe(
      'Réseau national coupé : seuls les codes déjà achetés fonctionnent',
    );
    // A wrong password is refused from the replica too.
    expect(
      (
        await asRouter.auth({
          'User-Name': stock.code,
          'User-Password': 'WRONG',
          'Calling-Station-Id': '02:00:00:00:34:02',
        })
      ).code,
    ).toBe('Access-Reject');
    // The UDP router is known from the replica once FreeRADIUS forgot it (a lifetime of 1 s):
    // these reports are answered after that.
    for (const bytes of [0, 50_000, 120_000]) {
      const status = bytes === 0 ? 'Start' : 'Interim-Update';
      expect((await report(stock, 'S-B', '02:00:00:00:34:02', status, bytes)).code).toBe(
        'Accounting-Response',
      );
    }
    expect((await report(inUse, 'S-A', '02:00:00:00:34:01', 'Interim-Update', 450_000)).code).toBe(
      'Accounting-Response',
    );
    const journaled = service.journal.pending();
    // A login decided here (the voucher), then its session's and the other's reports, in order.
    expect(journaled.map((e) => e.route)).toEqual([
      'accounting',
      'authorize',
      'accounting',
      'accounting',
      'accounting',
      'accounting',
    ]);

    // The region, meanwhile: the country's hotspot silent with a session open, 20 minutes on.
    clock.set(() => Date.now() + 20 * 60_000);
    const during = (await sweep()) as Record<string, number>;
    expect(during.countries_cut).toBeGreaterThanOrEqual(1);
    expect(during.paused).toBeGreaterThanOrEqual(1);
    expect((await listSiteAlerts('country:CI', 'active')).length).toBe(1);
    expect((await currentPublicStatus()).notices?.[0]?.message).toMatch(
      /^Côte d'Ivoire : liaison internationale coupée depuis \d\d:\d\d, les codes déjà achetés fonctionnent$/,
    );
    clock.reset();

    // The link comes back: the journal is replayed in order, the replica fetched again.
    const replayed = once(service.events, 'replayed');
    const up = once(service.events, 'link');
    link.setCut(false);
    expect(await replayed).toEqual([6]);
    expect(await up).toEqual(['up']);
    expect(service.journal.size).toBe(0);

    // Counted once, as the routers reported: the paid code's last total, the voucher's session.
    expect((await getAccessCode(inUse.code))?.used_bytes).toBe(450_000);
    const redeemed = await getAccessCode(stock.code);
    expect(redeemed?.used_bytes).toBe(120_000);
    expect(redeemed?.started_at).toBeDefined();
    // A second replay of the same journal (a crash before its cursor was written) adds nothing.
    for (const entry of journaled.filter((e) => e.route === 'accounting')) {
      const res = await fetch(`${server.url()}/api/v1/edge/radius/accounting`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${edgeToken}` },
        body: JSON.stringify(entry.body),
      });
      expect(res.status).toBe(204);
    }
    expect((await getAccessCode(inUse.code))?.used_bytes).toBe(450_000);
    expect((await getAccessCode(stock.code))?.used_bytes).toBe(120_000);

    // The region: the country is back, its alert cleared, the sessions never closed as silent.
    clock.set(() => Date.now() + 60_000);
    const after = (await sweep()) as Record<string, number>;
    clock.reset();
    expect(after.countries_cut).toBe(0);
    expect(await listSiteAlerts('country:CI', 'active')).toHaveLength(0);
    expect((await currentPublicStatus()).notices).toBeUndefined();
    for (const entry of journaled.filter((e) => e.route === 'accounting')) {
      expect((await getSession(sessionIdOf(entry.body)))?.status).toBe('open');
    }
  }, 120_000);

  it("learns its own resellers' routers only: another reseller's router is no client of it", async () => {
    const other = randomUUID();
    const otherNas = `access_cut_${randomUUID().slice(0, 8)}`;
    await Nas.put({
      nas_id: otherNas,
      reseller_id: other,
      reseller_name: 'Autre',
      vlan_id: 11,
      kind: 'vlan',
    });
    const { router: otherRouter } = await register({
      reseller_id: other,
      name: 'Autre',
      nas_ids: [otherNas],
      transport: 'udp',
      source_ip: '127.31.0.8',
    });
    // The edge asks the region's edge rows with its token; the front asks its own service.
    const FRONT = process.env.RADIUS_API_SECRET as string;
    const ask = (call: string, bearer: string, body: unknown) =>
      fetch(
        bearer === FRONT
          ? `${server.frontUrl()}/api/v1/radius/${call}`
          : `${server.url()}/api/v1/edge/radius/${call}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
          body: JSON.stringify(body),
        },
      );
    const lookup = (ip: string, bearer: string) =>
      ask('client', bearer, { 'Hotspot-NAS-IP': { type: 'string', value: [ip] } });
    expect((await lookup(routerIp, edgeToken)).status).toBe(200);
    expect((await lookup('127.31.0.8', edgeToken)).status).toBe(404);
    // Nor does the region take a login the edge forwards for that router, which the region's own
    // front takes (every router of the cell is its).
    const otherCode = paidCode(other);
    await Access.put(otherCode);
    const login = {
      'User-Name': { type: 'string', value: [otherCode.code] },
      'NAS-Identifier': { type: 'string', value: [otherNas] },
      'Hotspot-Router-Id': { type: 'string', value: [otherRouter.router_id] },
    };
    const refused = await ask('authorize', edgeToken, login);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(await refused.json())).toContain('Routeur non autoris');
    expect((await ask('authorize', FRONT, login)).status).toBe(200);

    // Neither passes for the other: the front's bearer is no edge's token on the public API,
    // and an edge's token opens nothing on a front's service (a 5xx, never a subscriber's 401).
    const crossed = async (url: string, bearer: string) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify(login),
      });
      return [res.status, ((await res.json()) as { error?: { code?: string } }).error?.code];
    };
    const refusedAs = [502, 'ERR_RADIUS_CREDENTIALS'];
    expect(await crossed(`${server.url()}/api/v1/edge/radius/authorize`, FRONT)).toEqual(refusedAs);
    expect(await crossed(`${server.url()}/api/v1/edge/replica`, FRONT)).toEqual(refusedAs);
    expect(await crossed(`${server.frontUrl()}/api/v1/radius/authorize`, edgeToken)).toEqual(refusedAs);
    // The region's public API has no front row at all.
    expect((await fetch(`${server.url()}/api/v1/radius/authorize`, { method: 'POST' })).status).toBe(404);
  });

  it('stops answering from its replica once the region revokes it, and leaves the router scripts', async () => {
    expect((await edgeLinksOf(resellerId)).udp).toEqual(['192.0.2.34']);
    await revokeEdge(edgeId, clock.iso());
    expect((await edgeLinksOf(resellerId)).udp).toEqual([]);
    const revoked = once(service.events, 'revoked');
    expect(await service.sync()).toBe(false);
    await revoked;
    expect(service.link()).toBe('revoked');
    expect(service.state.replica).toBeUndefined();
  });
});
