import { createHash, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localPages } from '../../bin/local/pages.js';
import { type LocalServer, startServer } from '../../bin/local/server.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { getDisconnect } from '../../functions/store/disconnects.js';
import { routersSeenAt } from '../../functions/store/hotspot-addresses.js';
import { Nas } from '../../functions/store/nas.js';
import { getSession } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { type FakeNas, startFakeNas } from '../support/fake-nas.js';
import { call, tokenFor } from '../support/http.js';
import {
  asRouter,
  type EdgeContext,
  edgeStack,
  givenUdpRouter,
  radclientBatch,
  type TestRouter,
} from '../support/radius.js';
import { eventually } from '../support/wait.js';

// Issue 31's budget and lock-out findings, replayed as written through the whole edge: radclient
// -> the shipped FreeRADIUS -> the local API -> DynamoDB Local, and the portal's public routes
// through a local server on the same table that takes the caller's address from
// x-forwarded-for (many callers, as API Gateway would see them).

let edge: EdgeContext;
/** The portal's routes on the edge's table, with the client address each request says. */
let portal: LocalServer;
const nases: FakeNas[] = [];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  portal = await startServer({ port: 0, pages: localPages(), trustForwardedFor: true });
});

afterAll(async () => {
  await portal?.close();
});

afterEach(async () => {
  await Promise.all(nases.splice(0).map((n) => n.close()));
});

const TOO_MANY = "Trop d'essais de codes, réessayez plus tard";
const MAC_AUTH_PASSWORD = 'hotspot-mac';
const first = (reply: { attributes: Record<string, string[]> }, name: string) => reply.attributes[name]?.[0];

let seq = 0;
/** A reseller's hotspot, its UDP router, and a fake NAS answering that router's Disconnects. */
async function hotspot(): Promise<{ resellerId: string; nasId: string; router: TestRouter; nas: FakeNas }> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_lock_${Date.now().toString(36)}_${seq}`;
  const record = {
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Lock',
    vlan_id: 10,
    kind: 'vlan',
  } as const;
  await Nas.put(record);
  const router = await givenUdpRouter(edge, resellerId, [nasId]);
  const nas = await startFakeNas(router.secret);
  nases.push(nas);
  await Nas.put({ ...record, coa_host: '127.0.0.1', coa_port: nas.port });
  return { resellerId, nasId, router, nas };
}

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

async function code(resellerId: string, maxDevices: number): Promise<AccessCode> {
  const c = paidCode(resellerId, { data_limit_mb: 1024, max_devices: maxDevices }, { code: newCode() });
  await Access.put(c);
  return c;
}

const macOf = (n: number) =>
  `02:00:${[(n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`.toUpperCase();

const codeLogin = (router: TestRouter, nasId: string, c: string, mac: string) =>
  asRouter(edge, router).auth({
    'User-Name': c,
    'User-Password': c,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': mac,
  });

const macLogin = (router: TestRouter, nasId: string, mac: string) =>
  asRouter(edge, router).auth({
    'User-Name': mac,
    'User-Password': MAC_AUTH_PASSWORD,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': mac,
  });

/** The router's Start for a session of `user` (a code, or the MAC of a MAC login): its id in the API. */
async function started(router: TestRouter, nasId: string, user: string, mac: string): Promise<string> {
  const acctSessionId = randomUUID().slice(0, 8).toUpperCase();
  const reply = await asRouter(edge, router).acct({
    'Acct-Status-Type': 'Start',
    'User-Name': user,
    'NAS-Identifier': nasId,
    'NAS-IP-Address': '127.0.0.1',
    'Acct-Session-Id': acctSessionId,
    'Calling-Station-Id': mac,
    'Acct-Session-Time': 0,
  });
  expect(reply.code).toBe('Accounting-Response');
  // The Acct-Unique-Session-Id of the shipped policy.
  return createHash('md5').update(`${user},${acctSessionId},127.0.0.1,${nasId},,`).digest('hex');
}

/** The guess budgets' 10-minute window a moment falls in. */
const windowOf = (ms: number) => Math.floor(ms / 600_000);

/**
 * Runs a flood and what it checks right after, again if the run crossed into a new 10-minute
 * window (the budgets count per window, so a flood split across two proves nothing); `attempt`
 * lets the second run use devices and addresses of its own.
 */
async function inOneWindow<T>(flood: (attempt: number) => Promise<T>): Promise<T> {
  const start = Date.now();
  const out = await flood(0);
  return windowOf(Date.now()) === windowOf(start) ? out : flood(1);
}

const check = (nasId: string, c: string, from: string) =>
  call<{ valid?: boolean; reason?: string; error?: { code: string } }>(
    portal.url,
    'POST',
    '/api/v1/access/check',
    {
      body: { nas_id: nasId, code: c },
      headers: { 'x-forwarded-for': from },
    },
  );

describe('H1: a flood of wrong codes never switches a hotspot off', () => {
  it('H1: after 10 addresses x 20 wrong codes at the portal and 200 at RADIUS, a right code still logs in (radclient and portal), and the reseller is alerted', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId, 2);

    // The public route: ten addresses, twenty wrong codes each.
    const { answers, limited } = await inOneWindow(async (attempt) => {
      const addresses = Array.from({ length: 10 }, (_, i) => `198.51.${100 + attempt}.${i + 1}`);
      // Five addresses at a time (the run's other files share this machine's DynamoDB Local).
      const answers: string[] = [];
      for (const pair of [0, 5]) {
        const lanes = await Promise.all(
          addresses.slice(pair, pair + 5).map(async (from) => {
            const out: string[] = [];
            for (let i = 0; i < 20; i++) {
              const r = await check(nasId, newCode(), from);
              out.push(r.status === 200 ? String(r.body.reason) : `${r.status} ${JSON.stringify(r.body)}`);
            }
            return out;
          }),
        );
        answers.push(...lanes.flat());
      }
      // A flooding address is told nothing more of any code, a right one included (issue 40,
      // M1): no refusal either, so the portal still takes a code typed there to the router.
      const limited = await check(nasId, c.code, addresses[0] as string);
      return { answers, limited };
    });
    expect(answers.filter((a) => a !== 'unconfirmed')).toEqual([]);
    expect(answers).toHaveLength(200);
    expect([limited.status, limited.body]).toEqual([200, { valid: false, reason: 'unconfirmed' }]);

    // RADIUS: two hundred wrong codes at the hotspot, from as many devices.
    const { batch, wrong } = await inOneWindow(async (attempt) => {
      const packets = Array.from({ length: 200 }, (_, i) => {
        const guess = newCode();
        return {
          'User-Name': guess,
          'User-Password': guess,
          'NAS-Identifier': nasId,
          'Calling-Station-Id': macOf(0x10000 + attempt * 0x1000 + i),
          'Message-Authenticator': '0x00',
          'Packet-Src-IP-Address': router.ip,
        };
      });
      const batch = await radclientBatch('auth', packets, {
        port: edge.radiusAuthPort,
        secret: router.secret,
        parallel: 20,
      });
      // Past the hotspot's count, wrong codes are "too many tries"...
      const wrong = await codeLogin(router, nasId, newCode(), macOf(0x20001 + attempt));
      return { batch, wrong };
    });
    expect(batch.counts['Access-Accept']).toBe(0);
    expect([wrong.code, first(wrong, 'Reply-Message')]).toEqual(['Access-Reject', TOO_MANY]);

    // ...and a real subscriber's right code logs in, through RADIUS...
    const login = await codeLogin(router, nasId, c.code, macOf(0x20002));
    expect(login.code).toBe('Access-Accept');
    // Authorize recorded the router's address: its hotspot's, which the SMS budgets raise.
    expect(await routersSeenAt(router.ip, Date.now())).toEqual([router.routerId]);
    // ...and through the portal, from the hotspot's own address, it is confirmed.
    const ok = await check(nasId, c.code, router.ip);
    expect([ok.status, ok.body.valid]).toEqual([200, true]);

    // The reseller sees the flood among its hotspot's alerts.
    const token = await tokenFor('reseller', { resellerId });
    const alerts = await call<{ items: { type: string; site: string; message: string }[] }>(
      edge.apiUrl,
      'GET',
      '/api/v1/alerts?status=active',
      { token },
    );
    expect(alerts.status).toBe(200);
    const mine = alerts.body.items.filter((a) => a.type === 'CODE_GUESSING' && a.site === nasId);
    expect(mine.length).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('H1: one phone behind the hotspot guessing 20 codes at the portal refuses none of its neighbours: the check stops confirming codes there (no oracle), and their right codes log in at the router', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId, 1);
    const { reasons, limited, right } = await inOneWindow(async () => {
      const reasons: string[] = [];
      for (let i = 0; i < 20; i++)
        reasons.push(String((await check(nasId, newCode(), router.ip)).body.reason));
      return {
        reasons,
        limited: await check(nasId, newCode(), router.ip),
        right: await check(nasId, c.code, router.ip),
      };
    });
    expect(reasons).toEqual(Array(20).fill('unconfirmed'));
    // Past the address's budget a wrong code and a right one get the same 200: no 429 for the
    // neighbours, and nothing for the guesser to tell them apart by.
    expect([limited.status, limited.body]).toEqual([200, { valid: false, reason: 'unconfirmed' }]);
    expect([right.status, right.body]).toEqual([limited.status, limited.body]);
    // The portal posts an unconfirmed code to the router, whose RADIUS lets the right one in.
    expect((await codeLogin(router, nasId, c.code, macOf(0x20101))).code).toBe('Access-Accept');
  });
});

describe('M3: a MAC login is bounded', () => {
  it("M3: a MAC login gets a Session-Timeout of an hour at most (the code has a day), a typed one the code's whole time", async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId, 2);
    const mac = macOf(0x30001);
    const remembered = await call(edge.apiUrl, 'POST', '/api/v1/access/devices', {
      body: { nas_id: nasId, code: c.code, mac },
    });
    expect(remembered.status).toBe(200);
    const byMac = await macLogin(router, nasId, mac);
    expect(byMac.code).toBe('Access-Accept');
    expect(Number(first(byMac, 'Session-Timeout'))).toBe(3600);
    const typed = await codeLogin(router, nasId, c.code, macOf(0x30002));
    expect(Number(first(typed, 'Session-Timeout'))).toBeGreaterThan(24 * 3600 - 60);
  });

  it('M3: forgetting a device ("Oublier cet appareil") cuts the copier holding the code by that MAC, through Disconnect', async () => {
    const { resellerId, nasId, router, nas } = await hotspot();
    const c = await code(resellerId, 1);
    const mac = macOf(0x30011);
    expect(
      (
        await call(edge.apiUrl, 'POST', '/api/v1/access/devices', {
          body: { nas_id: nasId, code: c.code, mac },
        })
      ).status,
    ).toBe(200);
    // A copier with the remembered phone's MAC gets in by MAC login, and its session runs.
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Accept');
    const copier = await started(router, nasId, mac, mac);

    const forgotten = await call(edge.apiUrl, 'POST', '/api/v1/access/devices/forget', {
      body: { nas_id: nasId, code: c.code, mac },
    });
    expect(forgotten).toMatchObject({ status: 200, body: { forgotten: true } });
    const [request] = await nas.waitFor(1);
    expect(request).toMatchObject({ code: 'Disconnect-Request', attributes: { 'User-Name': mac } });
    expect(await getDisconnect(copier)).toMatchObject({ reason: 'device_forgotten' });
    await eventually(async () => expect((await getSession(copier))?.status).toBe('closed'));
    // And its next MAC login is refused.
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Reject');
  });

  it("M3: the owner typing the code takes the place a copied MAC holds: accepted, and the copier's session cut", async () => {
    const { resellerId, nasId, router, nas } = await hotspot();
    const c = await code(resellerId, 1);
    const mac = macOf(0x30021);
    expect(
      (
        await call(edge.apiUrl, 'POST', '/api/v1/access/devices', {
          body: { nas_id: nasId, code: c.code, mac },
        })
      ).status,
    ).toBe(200);
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Accept');
    const copier = await started(router, nasId, mac, mac);

    // The owner, on another device, types the code: the one place is the copier's, by MAC.
    const owner = macOf(0x30022);
    const typed = await codeLogin(router, nasId, c.code, owner);
    expect(typed.code).toBe('Access-Accept');
    expect(Object.keys((await getAccessCode(c.code))?.devices ?? {})).toEqual([`${nasId}/${owner}`]);
    const [request] = await nas.waitFor(1);
    expect(request).toMatchObject({ code: 'Disconnect-Request', attributes: { 'User-Name': mac } });
    expect(await getDisconnect(copier)).toMatchObject({ reason: 'device_evicted' });
    // The copier's MAC login again finds the code full: a MAC login takes no typed device's place.
    const back = await macLogin(router, nasId, mac);
    expect(back.code).toBe('Access-Reject');
    // A device that typed the code is never pushed out by another typing it.
    const third = await codeLogin(router, nasId, c.code, macOf(0x30023));
    expect(third.code).toBe('Access-Reject');
  });
});
