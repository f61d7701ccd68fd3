import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBinary } from '../../bin/local/freeradius.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { getSession } from '../../functions/store/sessions.js';
import { call, tokenFor } from '../support/http.js';
import { asRouter, type EdgeContext, edgeStack, givenUdpRouter, type TestRouter } from '../support/radius.js';
import { type IssuedRadsec, type Radsecproxy, startRadsecRouter } from '../support/radsec.js';
import { eventually } from '../support/wait.js';

// Every router proves who it is (issue 19, H1): the whole edge for real, radclient (or
// radclient -> radsecproxy for RadSec) -> FreeRADIUS with the shipped config -> the API.

let edge: EdgeContext;
const proxies: Radsecproxy[] = [];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.stop()));
});

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

let seq = 0;
/** A reseller with one hotspot and a 1 GiB code for it. */
async function reseller(): Promise<{ resellerId: string; nasId: string; code: AccessCode }> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_rtr_${Date.now().toString(36)}_${seq}`;
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Routers',
    vlan_id: 10,
    kind: 'vlan',
  });
  const code: AccessCode = {
    code: newCode(),
    reseller_id: resellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: randomUUID(),
    forfait_name: 'Jour',
    offer: { duration_hours: 24, data_limit_mb: 1024, cir_kbps: 512, mir_kbps: 2048, max_devices: 1 },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  };
  await Access.put(code);
  return { resellerId, nasId, code };
}

const loginOf = (code: string, nasId: string) => ({
  'User-Name': code,
  'User-Password': code,
  'NAS-Identifier': nasId,
  'Calling-Station-Id': '02:00:00:00:00:07',
});
const interim = (code: string, nasId: string, sessionId: string, gigawords = 0) => ({
  'Acct-Status-Type': 'Interim-Update',
  'User-Name': code,
  'NAS-Identifier': nasId,
  'NAS-IP-Address': '127.0.0.1',
  'Acct-Session-Id': sessionId,
  'Calling-Station-Id': '02:00:00:00:00:07',
  'Acct-Input-Octets': 1000,
  'Acct-Output-Octets': 1000,
  'Acct-Output-Gigawords': gigawords,
  'Acct-Session-Time': 60,
});
/** The Acct-Unique-Session-Id FreeRADIUS derives (deploy/freeradius/policy/accounting). */
async function uniqueId(code: string, nasId: string, sessionId: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('md5').update(`${code},${sessionId},127.0.0.1,${nasId},,`).digest('hex');
}
const ROUTER_REFUSED = 'Routeur non autorisé pour ce hotspot';

describe('a UDP router (its own secret, bound to its address)', () => {
  let a: Awaited<ReturnType<typeof reseller>>;
  let b: Awaited<ReturnType<typeof reseller>>;
  let routerA: TestRouter;
  let routerB: TestRouter;

  beforeAll(async () => {
    a = await reseller();
    b = await reseller();
    routerA = await givenUdpRouter(edge, a.resellerId, [a.nasId]);
    routerB = await givenUdpRouter(edge, b.resellerId, [b.nasId]);
  });

  it("logs in its own reseller's codes at its own NAS id", async () => {
    const reply = await asRouter(edge, routerA).auth(loginOf(a.code.code, a.nasId));
    expect(reply.code).toBe('Access-Accept');
  });

  it("cannot log in at another reseller's NAS id, even with that reseller's own code", async () => {
    const reply = await asRouter(edge, routerA).auth(loginOf(b.code.code, b.nasId));
    expect([reply.code, reply.attributes['Reply-Message']]).toEqual(['Access-Reject', [ROUTER_REFUSED]]);
    expect((await getAccessCode(b.code.code))?.started_at).toBeUndefined();
  });

  it("cannot account for another reseller's NAS id: answered, so it stops resending, and nothing is written", async () => {
    const before = await getAccessCode(b.code.code);
    const reply = await asRouter(edge, routerA).acct(interim(b.code.code, b.nasId, 'h1-a', 1));
    expect(reply.code).toBe('Accounting-Response');
    expect(await getSession(await uniqueId(b.code.code, b.nasId, 'h1-a'))).toBeUndefined();
    expect((await getAccessCode(b.code.code))?.used_bytes).toBe(before?.used_bytes);
  });

  it("cannot close another reseller's sessions with a forged Accounting-On", async () => {
    const open = await asRouter(edge, routerB).acct({
      ...interim(b.code.code, b.nasId, 'b-open'),
      'Acct-Status-Type': 'Start',
    });
    expect(open.code).toBe('Accounting-Response');

    const forged = await asRouter(edge, routerA).acct({
      'Acct-Status-Type': 'Accounting-On',
      'NAS-Identifier': b.nasId,
    });

    expect(forged.code).toBe('Accounting-Response');
    expect((await getSession(await uniqueId(b.code.code, b.nasId, 'b-open')))?.status).toBe('open');
  });

  it("cannot count usage on another reseller's code from its own NAS id (4 GiB with one gigaword)", async () => {
    const reply = await asRouter(edge, routerB).acct(interim(a.code.code, b.nasId, 'h1-gw', 1));
    expect(reply.code).toBe('Accounting-Response');
    expect(await getSession(await uniqueId(a.code.code, b.nasId, 'h1-gw'))).toBeUndefined();
    expect((await getAccessCode(a.code.code))?.used_bytes).toBe(0);
  });

  it('gets nothing from another address with its secret: a forged NAS id from an unregistered address is dropped', async () => {
    const forger = asRouter(edge, { ip: '127.254.254.254', secret: routerA.secret });
    const login = await forger.auth(loginOf(a.code.code, a.nasId), { timeoutS: 1.5 });
    const report = await forger.acct(
      { 'Acct-Status-Type': 'Accounting-On', 'NAS-Identifier': a.nasId },
      { timeoutS: 1.5 },
    );
    expect([login.code, report.code]).toEqual(['timeout', 'timeout']);
  });

  it('is refused by the API as soon as it is revoked (FreeRADIUS then forgets it within its client lifetime)', async () => {
    const r = await reseller();
    const router = await givenUdpRouter(edge, r.resellerId, [r.nasId]);
    const owner = await tokenFor('reseller', { resellerId: r.resellerId });
    expect((await asRouter(edge, router).auth(loginOf(r.code.code, r.nasId))).code).toBe('Access-Accept');

    const revoked = await call(edge.apiUrl, 'POST', `/api/v1/routers/${router.routerId}/revoke`, {
      token: owner,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ router_id: router.routerId, status: 'revoked' });

    const login = await asRouter(edge, router).auth(loginOf(r.code.code, r.nasId));
    const report = await asRouter(edge, router).acct(interim(r.code.code, r.nasId, 'after-revoke'));
    expect([login.code, login.attributes['Reply-Message']]).toEqual(['Access-Reject', [ROUTER_REFUSED]]);
    expect(report.code).toBe('Accounting-Response');
    expect(await getSession(await uniqueId(r.code.code, r.nasId, 'after-revoke'))).toBeUndefined();
  });
});

describe('a RadSec router (its client certificate, through radsecproxy)', () => {
  /** Registers a RadSec router through the API and starts a radsecproxy with its certificate. */
  async function radsecRouter(resellerId: string, nasIds: string[]) {
    const owner = await tokenFor('reseller', { resellerId });
    const res = await call<{
      router: { router_id: string; cert_serial: string };
      credentials: { certificate_pem: string; private_key_pem: string; ca_pem: string; serial: string };
    }>(edge.apiUrl, 'POST', '/api/v1/routers', {
      token: owner,
      body: { reseller_id: resellerId, name: 'RadSec router', nas_ids: nasIds, transport: 'radsec' },
    });
    expect(res.status).toBe(201);
    return { owner, ...res.body, proxy: await proxyFor(res.body.credentials) };
  }
  async function proxyFor(c: IssuedRadsec) {
    const proxy = await startRadsecRouter(c, edge.radiusTlsPort);
    proxies.push(proxy);
    return proxy;
  }
  const via = (proxy: Radsecproxy) =>
    asRouter(
      { ...edge, radiusAuthPort: proxy.port, radiusAcctPort: proxy.port },
      { ip: '127.0.0.1', secret: proxy.secret },
    );

  it("logs in and accounts at its own NAS ids, and is refused at another reseller's", async () => {
    const a = await reseller();
    const b = await reseller();
    const router = await radsecRouter(a.resellerId, [a.nasId]);
    expect(router.router.cert_serial).toBe(router.credentials.serial);

    const own = await via(router.proxy).auth(loginOf(a.code.code, a.nasId), { timeoutS: 5 });
    const ownReport = await via(router.proxy).acct({
      ...interim(a.code.code, a.nasId, 'rs-1'),
      'Acct-Status-Type': 'Start',
    });
    const foreign = await via(router.proxy).auth(loginOf(b.code.code, b.nasId), { timeoutS: 5 });
    const foreignReport = await via(router.proxy).acct(interim(b.code.code, b.nasId, 'rs-2', 1));

    expect(own.code).toBe('Access-Accept');
    expect(ownReport.code).toBe('Accounting-Response');
    expect((await getSession(await uniqueId(a.code.code, a.nasId, 'rs-1')))?.status).toBe('open');
    expect([foreign.code, foreign.attributes['Reply-Message']]).toEqual(['Access-Reject', [ROUTER_REFUSED]]);
    expect(foreignReport.code).toBe('Accounting-Response');
    expect(await getSession(await uniqueId(b.code.code, b.nasId, 'rs-2'))).toBeUndefined();
  });

  it('refuses its previous certificate once new credentials are issued, and every certificate once revoked', async () => {
    const r = await reseller();
    const router = await radsecRouter(r.resellerId, [r.nasId]);
    expect((await via(router.proxy).auth(loginOf(r.code.code, r.nasId), { timeoutS: 5 })).code).toBe(
      'Access-Accept',
    );

    // The session ends (its Stop releases the device), so the next login is the device's again.
    for (const status of ['Start', 'Stop'])
      expect(
        (
          await via(router.proxy).acct({
            ...interim(r.code.code, r.nasId, 'rot-1'),
            'Acct-Status-Type': status,
          })
        ).code,
      ).toBe('Accounting-Response');
    const rotated = await call<{
      credentials: { certificate_pem: string; private_key_pem: string; ca_pem: string };
    }>(edge.apiUrl, 'POST', `/api/v1/routers/${router.router.router_id}/credentials`, {
      token: router.owner,
    });
    expect(rotated.status).toBe(201);
    const next = await proxyFor(rotated.body.credentials);

    const old = await via(router.proxy).auth(loginOf(r.code.code, r.nasId), { timeoutS: 5 });
    const fresh = await via(next).auth(loginOf(r.code.code, r.nasId), { timeoutS: 5 });
    expect([old.code, old.attributes['Reply-Message']]).toEqual(['Access-Reject', [ROUTER_REFUSED]]);
    expect([fresh.code, fresh.attributes['Reply-Message']]).toEqual(['Access-Accept', undefined]);

    await call(edge.apiUrl, 'POST', `/api/v1/routers/${router.router.router_id}/revoke`, {
      token: router.owner,
    });
    const afterRevoke = await via(next).auth(loginOf(r.code.code, r.nasId), { timeoutS: 5 });
    expect([afterRevoke.code, afterRevoke.attributes['Reply-Message']]).toEqual([
      'Access-Reject',
      [ROUTER_REFUSED],
    ]);
  });
});

describe('registering routers (POST /api/v1/routers)', () => {
  it('refuses a NAS id of another reseller, the same way as one that does not exist', async () => {
    const a = await reseller();
    const b = await reseller();
    const owner = await tokenFor('reseller', { resellerId: a.resellerId });
    const res = await call(edge.apiUrl, 'POST', '/api/v1/routers', {
      token: owner,
      body: {
        reseller_id: a.resellerId,
        name: 'R',
        nas_ids: [a.nasId, b.nasId, 'access_nowhere'],
        transport: 'radsec',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'ERR_VALIDATION' } });
    expect(JSON.stringify(res.body)).toContain(`${b.nasId}, access_nowhere`);
  });

  it('gives a UDP secret once, binds it to one address, and never shows it again', async () => {
    const a = await reseller();
    const owner = await tokenFor('reseller', { resellerId: a.resellerId });
    const ip = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    const body = {
      reseller_id: a.resellerId,
      name: 'Fixed',
      nas_ids: [a.nasId],
      transport: 'udp',
      source_ip: ip,
    };
    const created = await call<{ router: { router_id: string }; credentials: { secret: string } }>(
      edge.apiUrl,
      'POST',
      '/api/v1/routers',
      { token: owner, body },
    );
    expect(created.status).toBe(201);
    expect(created.body.credentials.secret).toMatch(/^[A-Za-z0-9]{32}$/);

    const again = await call(edge.apiUrl, 'POST', '/api/v1/routers', { token: owner, body });
    expect(again.status).toBe(409);

    const shown = await call(edge.apiUrl, 'GET', `/api/v1/routers/${created.body.router.router_id}`, {
      token: owner,
    });
    const listed = await call(edge.apiUrl, 'GET', '/api/v1/routers', { token: owner });
    expect(shown.status).toBe(200);
    expect(JSON.stringify([shown.body, listed.body])).not.toContain(created.body.credentials.secret);
    expect(JSON.stringify([shown.body, listed.body])).not.toContain('secret_box');
    expect(listed.body).toMatchObject({
      total: 1,
      items: [{ router_id: created.body.router.router_id, source_ip: ip }],
    });
  });

  it('answers the RouterOS setup script with new credentials (RadSec, UDP, and again on renewal), and nowhere else', async () => {
    const a = await reseller();
    const owner = await tokenFor('reseller', { resellerId: a.resellerId });
    type Issued = {
      router: { router_id: string };
      credentials: { secret?: string; certificate_pem?: string; private_key_pem?: string };
      routeros_script?: string;
    };
    const radsec = await call<Issued>(edge.apiUrl, 'POST', '/api/v1/routers', {
      token: owner,
      body: { reseller_id: a.resellerId, name: 'Bar', nas_ids: [a.nasId], transport: 'radsec' },
    });
    expect(radsec.status).toBe(201);
    const script = radsec.body.routeros_script as string;
    // npm start's RADIUS front (RADIUS_HOST), this hotspot, this router's certificate and key.
    expect(script).toContain(`# Hotspot platform: NAS ${a.nasId}, RouterOS 7.`);
    expect(script).toContain(`/system identity set name="${a.nasId}"`);
    expect(script).toContain('/radius add service=hotspot address="127.0.0.1" protocol=radsec');
    const pemLine = (pem: string | undefined) => (pem as string).trim().split('\n')[1] as string;
    expect(script).toContain(pemLine(radsec.body.credentials.certificate_pem));
    expect(script).toContain(pemLine(radsec.body.credentials.private_key_pem));

    const renewed = await call<Issued>(
      edge.apiUrl,
      'POST',
      `/api/v1/routers/${radsec.body.router.router_id}/credentials`,
      { token: owner },
    );
    expect(renewed.status).toBe(201);
    expect(renewed.body.routeros_script).toContain(pemLine(renewed.body.credentials.private_key_pem));
    expect(renewed.body.routeros_script).not.toContain(pemLine(radsec.body.credentials.private_key_pem));

    const udp = await call<Issued>(edge.apiUrl, 'POST', '/api/v1/routers', {
      token: owner,
      body: {
        reseller_id: a.resellerId,
        name: 'Fixe',
        nas_ids: [a.nasId],
        transport: 'udp',
        source_ip: `198.51.100.${Math.floor(Math.random() * 250) + 1}`,
      },
    });
    expect(udp.body.routeros_script).toContain(
      `/radius add service=hotspot address="127.0.0.1" secret="${udp.body.credentials.secret}"`,
    );
    const shown = await call(edge.apiUrl, 'GET', `/api/v1/routers?reseller_id=${a.resellerId}`, {
      token: owner,
    });
    expect(JSON.stringify(shown.body)).not.toContain('routeros_script');
    expect(JSON.stringify(shown.body)).not.toContain(udp.body.credentials.secret);
  });

  it('answers FreeRADIUS only with the bearer secret of a RADIUS server, and never a revoked router', async () => {
    const a = await reseller();
    const router = await givenUdpRouter(edge, a.resellerId, [a.nasId]);
    const lookup = (token: string) =>
      call(edge.serviceUrl, 'POST', '/api/v1/radius/client', {
        token,
        body: { 'Hotspot-NAS-IP': { type: 'string', value: [router.ip] } },
      });
    const known = await lookup(edge.radiusApiSecret);
    expect(known.status).toBe(200);
    expect(known.body).toMatchObject({
      'control:FreeRADIUS-Client-Secret': { value: router.secret, do_xlat: false },
      'control:FreeRADIUS-Client-Shortname': { value: router.routerId },
      'control:FreeRADIUS-Client-Require-MA': { value: 'yes' },
    });
    expect((await lookup(await tokenFor('admin'))).status).toBe(502);

    await call(edge.apiUrl, 'POST', `/api/v1/routers/${router.routerId}/revoke`, {
      token: await tokenFor('admin'),
    });
    // The front holds the revocation once its directory read the change (ROUTERS_REFRESH_MS:
    // 200 ms in the run's stack), and from then on never answers the router's address.
    await eventually(async () => (await lookup(edge.radiusApiSecret)).status === 404);
    for (let i = 0; i < 3; i++) expect((await lookup(edge.radiusApiSecret)).status).toBe(404);
  });
});

describe('a router reports through its own traffic (issue 33, item 2)', () => {
  type Shown = { state: string; last_heard_at?: string };
  const shown = async (token: string, routerId: string) =>
    call<Shown>(edge.apiUrl, 'GET', `/api/v1/routers/${routerId}`, { token });

  it('is never seen until it speaks; an accounting report through FreeRADIUS marks it online', async () => {
    const a = await reseller();
    const owner = await tokenFor('reseller', { resellerId: a.resellerId });
    const router = await givenUdpRouter(edge, a.resellerId, [a.nasId]);
    expect((await shown(owner, router.routerId)).body).toMatchObject({ state: 'never_seen' });
    expect((await shown(owner, router.routerId)).body.last_heard_at).toBeUndefined();

    const reply = await asRouter(edge, router).acct(interim(a.code.code, a.nasId, 'heard-1'));
    expect(reply.code).toBe('Accounting-Response');
    const after = await shown(owner, router.routerId);
    expect(after.body.state).toBe('online');
    expect(Date.parse(after.body.last_heard_at as string)).not.toBeNaN();
  });

  it("a refused router's packet marks nothing: another reseller's NAS id leaves it never seen", async () => {
    const a = await reseller();
    const b = await reseller();
    const router = await givenUdpRouter(edge, a.resellerId, [a.nasId]);
    await asRouter(edge, router).auth(loginOf(b.code.code, b.nasId));
    const owner = await tokenFor('reseller', { resellerId: a.resellerId });
    expect((await shown(owner, router.routerId)).body.state).toBe('never_seen');
    // The same router's own login then counts.
    expect((await asRouter(edge, router).auth(loginOf(a.code.code, a.nasId))).code).toBe('Access-Accept');
    expect((await shown(owner, router.routerId)).body.state).toBe('online');
  });

  it('downloads its complete script again with new credentials (the old secret stops), for its reseller only', async () => {
    const a = await reseller();
    const router = await givenUdpRouter(edge, a.resellerId, [a.nasId]);
    const owner = await tokenFor('reseller', { resellerId: a.resellerId });
    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    const path = `/api/v1/routers/${router.routerId}/credentials`;
    expect((await call(edge.apiUrl, 'POST', path, { token: other })).status).toBe(404);
    // The other reseller's attempt changed nothing: the router still logs in with its secret.
    expect((await asRouter(edge, router).auth(loginOf(a.code.code, a.nasId))).code).toBe('Access-Accept');

    const again = await call<{ credentials: { secret: string }; routeros_script: string }>(
      edge.apiUrl,
      'POST',
      path,
      {
        token: owner,
      },
    );
    expect(again.status).toBe(201);
    const script = again.body.routeros_script;
    expect(script).toContain(`secret="${again.body.credentials.secret}"`);
    expect(script).not.toContain(router.secret);
    // Complete: the login page is written by the script, no command line step is left.
    expect(script).toContain('/file add name="hotspot/login.html" contents="<!doctype html>');
    expect(script).toContain('/portal/\\$(identity)');
    expect(script).not.toContain('npm run');
  });
});

describe('a router revoked between authorize and post-auth', () => {
  it('is refused at post-auth (an Access-Reject), and the login writes nothing', async () => {
    const a = await reseller();
    const router = await givenUdpRouter(edge, a.resellerId, [a.nasId]);
    const attr = (value: string) => ({ type: 'string', value: [value] });
    const postAuth = () =>
      call<Record<string, unknown>>(edge.serviceUrl, 'POST', '/api/v1/radius/post-auth', {
        token: edge.radiusApiSecret,
        body: {
          'User-Name': attr(a.code.code),
          'NAS-Identifier': attr(a.nasId),
          'Calling-Station-Id': attr('02:00:00:00:00:09'),
          'Hotspot-Router-Id': attr(router.routerId),
        },
      });
    await call(edge.apiUrl, 'POST', `/api/v1/routers/${router.routerId}/revoke`, {
      token: await tokenFor('admin'),
    });
    const refused = await postAuth();
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      'reply:Reply-Message': { value: ROUTER_REFUSED },
      'control:Hotspot-Login-Refused': 1,
    });
    const untouched = await getAccessCode(a.code.code);
    expect([untouched?.started_at, untouched?.devices]).toEqual([undefined, {}]);
  });
});

describe("npm start's RadSec demo", () => {
  it('prints how to try RadSec, and the printed radsecproxy and radclient lines log the demo voucher in', async () => {
    const log = readFileSync(edge.logFile, 'utf8');
    expect(log).toMatch(/RadSec \(RADIUS over TLS, RFC 6614\) 127\.0\.0\.1:\d+/);
    const conf = /radsecproxy -f -c (\S+) &/.exec(log)?.[1] as string;
    const tryLine = /echo '(User-Name=[^']+)' \| radclient (127\.0\.0\.1:\d+) auth (\S+)\n/.exec(
      log.slice(log.indexOf('radsecproxy -f -c')),
    );
    expect(conf).toBeDefined();
    expect(tryLine).not.toBeNull();
    const [, packet = '', server = '', secret = ''] = tryLine as RegExpExecArray;

    const proxy = spawn(findBinary('radsecproxy') ?? 'radsecproxy', ['-f', '-d', '3', '-c', conf], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      // Ready once it listens for UDP (it opens the TLS connection at the first request).
      await new Promise<void>((ready, fail) => {
        let output = '';
        const read = (d: Buffer) => {
          output += d.toString();
          if (/listening for udp/.test(output)) ready();
        };
        proxy.stdout?.on('data', read);
        proxy.stderr?.on('data', read);
        proxy.once('exit', (code) => fail(new Error(`radsecproxy exited (${code}):\n${output}`)));
      });
      const reply = await new Promise<string>((done) => {
        const rc = spawn(findBinary('radclient') ?? 'radclient', [
          '-x',
          '-t',
          '5',
          '-r',
          '1',
          server,
          'auth',
          secret,
        ]);
        let out = '';
        rc.stdout.on('data', (d: Buffer) => {
          out += d.toString();
        });
        rc.once('close', () => done(out));
        rc.stdin.end(`${packet}\n`);
      });
      expect(reply).toContain('Received Access-Accept');
    } finally {
      proxy.kill('SIGTERM');
    }
  });
});
