import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { nasLogin, routerParams } from '../../functions/portal/router-login.js';
import { sweepSilentSessions } from '../../functions/radius/closing.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { countersOf } from '../../functions/store/counters.js';
import { Nas, type NasVendor } from '../../functions/store/nas.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { getSession, Session } from '../../functions/store/sessions.js';
import { call, tokenFor } from '../support/http.js';
import {
  asRouter,
  type EdgeContext,
  edgeStack,
  givenUdpRouter,
  type RadiusAttributes,
  type TestRouter,
} from '../support/radius.js';
import { account } from '../support/region.js';
import { eventually } from '../support/wait.js';

// The whole edge, for real: radclient -> Debian's FreeRADIUS with the shipped config -> the
// local API (npm start's server) -> DynamoDB Local. Data is seeded into the stack's table.

let edge: EdgeContext;
const GiB = 2 ** 30;
const MiB = 2 ** 20;

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
});

/** Each hotspot's own router (a UDP router registered for its NAS id at an address of its own). */
const routers = new Map<string, TestRouter>();
const routerOf = (attrs: RadiusAttributes): TestRouter => {
  const router = routers.get(String(attrs['NAS-Identifier']));
  if (!router) throw new Error(`no router for NAS ${attrs['NAS-Identifier']}`);
  return router;
};
/** As the hotspot's router sends it: from its address, with its secret. */
const auth = (attrs: RadiusAttributes) => asRouter(edge, routerOf(attrs)).auth(attrs);
const acct = (attrs: RadiusAttributes, options: { timeoutS?: number } = {}) =>
  asRouter(edge, routerOf(attrs)).acct(attrs, options);

let seq = 0;
/** A reseller with one hotspot of the given vendor. */
async function hotspot(vendor?: NasVendor): Promise<{ resellerId: string; nasId: string }> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_edge_${Date.now().toString(36)}_${seq}`;
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Edge',
    vlan_id: 10,
    kind: 'vlan',
    vendor,
  });
  routers.set(nasId, await givenUdpRouter(edge, resellerId, [nasId]));
  return { resellerId, nasId };
}

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

async function code(resellerId: string, overrides: Partial<AccessCode> = {}): Promise<AccessCode> {
  const c: AccessCode = {
    code: newCode(),
    reseller_id: resellerId,
    // A code of a purchase: a voucher's also has a voucher item (see the end-to-end test).
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: randomUUID(),
    forfait_name: 'Jour',
    offer: { duration_hours: 24, data_limit_mb: 1024, cir_kbps: 512, mir_kbps: 2048, max_devices: 1 },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
    ...overrides,
  };
  await Access.put(c);
  return c;
}

const login = (c: string, nasId: string, mac = '02:00:00:00:00:01') =>
  auth({ 'User-Name': c, 'User-Password': c, 'NAS-Identifier': nasId, 'Calling-Station-Id': mac });

function report(
  status: string,
  c: string,
  nasId: string,
  sessionId: string,
  bytes: { input?: number; output?: number } = {},
  mac = '02:00:00:00:00:01',
) {
  const split = (n: number) => ({ low: n % 2 ** 32, wraps: Math.floor(n / 2 ** 32) });
  const i = split(bytes.input ?? 0);
  const o = split(bytes.output ?? 0);
  return acct({
    'Acct-Status-Type': status,
    'User-Name': c,
    'NAS-Identifier': nasId,
    'NAS-IP-Address': '127.0.0.1',
    'Acct-Session-Id': sessionId,
    'Calling-Station-Id': mac,
    'Acct-Input-Octets': i.low,
    'Acct-Input-Gigawords': i.wraps,
    'Acct-Output-Octets': o.low,
    'Acct-Output-Gigawords': o.wraps,
    'Acct-Session-Time': 60,
  });
}

const first = (reply: { attributes: Record<string, string[]> }, name: string) => reply.attributes[name]?.[0];

describe('RADIUS authorize through FreeRADIUS', () => {
  it('accepts a MikroTik login by PAP with the time, rate and data of the forfait', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId);
    const reply = await login(c.code, nasId);
    expect(reply.code).toBe('Access-Accept');
    expect(Number(first(reply, 'Session-Timeout'))).toBeGreaterThan(24 * 3600 - 60);
    expect(Number(first(reply, 'Session-Timeout'))).toBeLessThanOrEqual(24 * 3600);
    expect(first(reply, 'Mikrotik-Rate-Limit')).toBe('2048k/2048k 0/0 0/0 0/0 8 512k/512k');
    expect(Number(first(reply, 'Mikrotik-Total-Limit'))).toBe(1024 * MiB);
    expect(Number(first(reply, 'Mikrotik-Total-Limit-Gigawords'))).toBe(0);
    expect(Number(first(reply, 'Acct-Interim-Interval'))).toBe(300);
    // The clock of a code starts at its first login.
    const stored = await getAccessCode(c.code);
    expect(stored?.started_at).toBeDefined();
    expect(Date.parse(stored?.expires_at ?? '') - Date.parse(stored?.started_at ?? '')).toBe(24 * 3600_000);
  });

  it('accepts a CHAP login, checked by FreeRADIUS against the password the API returned', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId);
    const ok = await auth({ 'User-Name': c.code, 'CHAP-Password': c.code, 'NAS-Identifier': nasId });
    expect(ok.code).toBe('Access-Accept');
    const wrong = await auth({ 'User-Name': c.code, 'CHAP-Password': 'WRONGWRONG', 'NAS-Identifier': nasId });
    expect(wrong.code).toBe('Access-Reject');
    expect(wrong.attributes['Session-Timeout']).toBeUndefined();
  });

  it('accepts the MikroTik CHAP answer the captive portal computes, checked by FreeRADIUS itself', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId);
    // radclient re-encodes a 17-byte CHAP-Password as a cleartext password when none of its
    // bytes is below 32 (1 time in 10 with random bytes): a CHAP id below 32 keeps it as given.
    // A router sends the bytes as they are; FreeRADIUS checks them the same whatever the id.
    const id = Buffer.from([(randomBytes(1)[0] as number) & 0x1f]);
    const challenge = randomBytes(16);
    // As the router hands them to the portal: octal escapes (`$(chap-id)`, `$(chap-challenge)`).
    const octal = (b: Buffer) => [...b].map((x) => `\\${x.toString(8).padStart(3, '0')}`).join('');
    const params = routerParams(
      new URLSearchParams({
        'link-login-only': 'http://10.5.50.1/login',
        'chap-id': octal(id),
        'chap-challenge': octal(challenge),
      }),
    );
    const login = params && nasLogin(params, c.code);
    const answer = (login && 'fields' in login ? login.fields.password : undefined) ?? '';
    const attrs = (hex: string) => ({
      'User-Name': c.code,
      'CHAP-Password': `0x${id.toString('hex')}${hex}`,
      'CHAP-Challenge': `0x${challenge.toString('hex')}`,
      'NAS-Identifier': nasId,
    });
    const ok = await auth(attrs(answer));
    expect([ok.code, first(ok, 'Reply-Message')]).toEqual(['Access-Accept', undefined]);
    expect((await auth(attrs('0'.repeat(32)))).code).toBe('Access-Reject');
  });

  it('answers CoovaChilli and WISPr hotspots with their own attributes and units', async () => {
    const coova = await hotspot('coova');
    const c1 = await code(coova.resellerId, {
      offer: { duration_hours: 2, data_limit_mb: 500, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
    });
    const r1 = await login(c1.code, coova.nasId);
    expect(r1.code).toBe('Access-Accept');
    expect(Number(first(r1, 'ChilliSpot-Bandwidth-Max-Down'))).toBe(1024);
    expect(Number(first(r1, 'ChilliSpot-Bandwidth-Max-Up'))).toBe(1024);
    expect(Number(first(r1, 'ChilliSpot-Max-Total-Octets'))).toBe(500 * MiB);
    expect(r1.attributes['Mikrotik-Rate-Limit']).toBeUndefined();

    const wispr = await hotspot('wispr');
    const c2 = await code(wispr.resellerId);
    const r2 = await login(c2.code, wispr.nasId);
    expect(r2.code).toBe('Access-Accept');
    expect(Number(first(r2, 'WISPr-Bandwidth-Max-Down'))).toBe(2048 * 1000);
    expect(Number(first(r2, 'WISPr-Bandwidth-Min-Up'))).toBe(512 * 1000);
    expect(first(r2, 'WISPr-Session-Terminate-Time')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('splits a data limit past 4 GiB into the low 32 bits and gigawords', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId, {
      offer: { duration_hours: 720, data_limit_mb: 30 * 1024, cir_kbps: 512, mir_kbps: 4096, max_devices: 1 },
    });
    const reply = await login(c.code, nasId);
    const limit = 30 * GiB;
    expect(Number(first(reply, 'Mikrotik-Total-Limit-Gigawords'))).toBe(Math.floor(limit / 2 ** 32));
    expect(Number(first(reply, 'Mikrotik-Total-Limit'))).toBe(limit % 2 ** 32);
  });

  it('refuses each reason with its fixed French Reply-Message', async () => {
    const { resellerId, nasId } = await hotspot();
    const other = await hotspot();
    const unknown = await login('ZZZZZZZZZZ', nasId);
    expect([unknown.code, first(unknown, 'Reply-Message')]).toEqual(['Access-Reject', 'Code inconnu']);

    const elsewhere = await code(other.resellerId);
    const wrong = await login(elsewhere.code, nasId);
    expect([wrong.code, first(wrong, 'Reply-Message')]).toEqual(['Access-Reject', 'Code inconnu']);

    const past = new Date(Date.now() - 60_000).toISOString();
    const expired = await code(resellerId, { started_at: past, expires_at: past });
    const exp = await login(expired.code, nasId);
    expect([exp.code, first(exp, 'Reply-Message')]).toEqual(['Access-Reject', 'Forfait expiré']);

    const unused = await code(resellerId, { use_by: past });
    const stale = await login(unused.code, nasId);
    expect([stale.code, first(stale, 'Reply-Message')]).toEqual(['Access-Reject', 'Forfait expiré']);

    const used = await code(resellerId, { used_bytes: 1024 * MiB });
    const data = await login(used.code, nasId);
    expect([data.code, first(data, 'Reply-Message')]).toEqual(['Access-Reject', 'Volume de données épuisé']);
    expect(data.attributes['Session-Timeout']).toBeUndefined();
  });
});

describe("the peers' top complaints, beaten", () => {
  it('a user at the cap who logs in again is refused', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId, {
      offer: { duration_hours: 24, data_limit_mb: 100, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
    });
    expect((await login(c.code, nasId)).code).toBe('Access-Accept');
    const session = randomUUID();
    expect((await report('Start', c.code, nasId, session)).code).toBe('Accounting-Response');
    expect(
      (await report('Interim-Update', c.code, nasId, session, { input: 10 * MiB, output: 90 * MiB })).code,
    ).toBe('Accounting-Response');
    expect((await report('Stop', c.code, nasId, session, { input: 10 * MiB, output: 90 * MiB })).code).toBe(
      'Accounting-Response',
    );
    const again = await login(c.code, nasId);
    expect([again.code, first(again, 'Reply-Message')]).toEqual([
      'Access-Reject',
      'Volume de données épuisé',
    ]);
  });

  it('the session is cut at the forfait expiry: Session-Timeout never passes it', async () => {
    const { resellerId, nasId } = await hotspot();
    const started = new Date(Date.now() - 3600_000 + 90_000);
    const c = await code(resellerId, {
      offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
      started_at: started.toISOString(),
      expires_at: new Date(started.getTime() + 3600_000).toISOString(),
    });
    const reply = await login(c.code, nasId);
    expect(reply.code).toBe('Access-Accept');
    const timeout = Number(first(reply, 'Session-Timeout'));
    expect(timeout).toBeGreaterThan(80);
    expect(timeout).toBeLessThanOrEqual(90);
    // No data cap on this forfait: no limit attribute at all.
    expect(reply.attributes['Mikrotik-Total-Limit']).toBeUndefined();
  });

  it('counters past 4 GB are counted exactly once, whatever the replays and the order', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId, {
      offer: { duration_hours: 720, data_limit_mb: 50 * 1024, cir_kbps: 512, mir_kbps: 8192, max_devices: 1 },
    });
    await login(c.code, nasId);
    const s = randomUUID();
    const at = (gib: number) => ({ input: gib * GiB * 0.25, output: gib * GiB * 0.75 });
    await report('Start', c.code, nasId, s);
    await report('Interim-Update', c.code, nasId, s, at(3));
    await report('Interim-Update', c.code, nasId, s, at(5)); // past 4 GiB: gigawords
    await report('Interim-Update', c.code, nasId, s, at(5)); // a duplicate
    await report('Interim-Update', c.code, nasId, s, at(3)); // late, out of order
    await Promise.all([
      report('Interim-Update', c.code, nasId, s, at(6)),
      report('Interim-Update', c.code, nasId, s, at(6)),
    ]);
    await report('Stop', c.code, nasId, s, at(7));
    await report('Stop', c.code, nasId, s, at(7)); // the NAS resent the Stop
    expect((await getAccessCode(c.code))?.used_bytes).toBe(7 * GiB);
    expect((await getSession(await sessionIdOf(c.code, nasId, s)))?.status).toBe('closed');
  });

  it('each device does not get the full quota: the data left is shared by the devices allowed', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId, {
      offer: { duration_hours: 24, data_limit_mb: 1000, cir_kbps: 512, mir_kbps: 2048, max_devices: 2 },
    });
    const a = await login(c.code, nasId, '02:00:00:00:00:0A');
    const b = await login(c.code, nasId, '02:00:00:00:00:0B');
    expect([a.code, b.code]).toEqual(['Access-Accept', 'Access-Accept']);
    const limitA = Number(first(a, 'Mikrotik-Total-Limit'));
    const limitB = Number(first(b, 'Mikrotik-Total-Limit'));
    expect(limitA + limitB).toBeLessThanOrEqual(1000 * MiB);
    expect(limitA).toBe(500 * MiB);
    // A third device is over the forfait's two.
    const third = await login(c.code, nasId, '02:00:00:00:00:0C');
    expect([third.code, first(third, 'Reply-Message')]).toEqual([
      'Access-Reject',
      "Nombre maximal d'appareils atteint",
    ]);
    // The same device logging in again once its session stopped gets its place back.
    const s = randomUUID();
    await report('Start', c.code, nasId, s, {}, '02:00:00:00:00:0A');
    await report('Stop', c.code, nasId, s, { output: 100 * MiB }, '02:00:00:00:00:0A');
    const again = await login(c.code, nasId, '02:00:00:00:00:0A');
    expect(again.code).toBe('Access-Accept');
    // What is left besides B's reservation: 1000 - 100 used - 500 reserved by B.
    expect(Number(first(again, 'Mikrotik-Total-Limit'))).toBe(400 * MiB);
  });

  it('a second device is refused at max_devices even when both log in at the same moment', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId);
    const replies = await Promise.all(
      ['02:00:00:00:01:01', '02:00:00:00:01:02', '02:00:00:00:01:03', '02:00:00:00:01:04'].map((mac) =>
        login(c.code, nasId, mac),
      ),
    );
    expect(replies.filter((r) => r.code === 'Access-Accept')).toHaveLength(1);
    expect(
      replies.filter((r) => first(r, 'Reply-Message') === "Nombre maximal d'appareils atteint"),
    ).toHaveLength(3);
  });

  it('a stale session does not block a new login, and the sweep closes it', async () => {
    const { resellerId, nasId } = await hotspot();
    const lease = 660;
    const c = await code(resellerId);
    const s = randomUUID();
    expect((await login(c.code, nasId, '02:00:00:00:02:0A')).code).toBe('Access-Accept');
    await report('Start', c.code, nasId, s, {}, '02:00:00:00:02:0A');
    // Then its NAS stopped reporting: time passes beyond device A's lease.
    const past = Math.floor(Date.now() / 1000) - 1;
    await Access.update(
      { code: c.code },
      { expression: 'SET devices = :d', values: { ':d': { '02:00:00:00:02:0A': past } } },
    );
    const b = await login(c.code, nasId, '02:00:00:00:02:0B');
    expect(b.code).toBe('Access-Accept');

    // Counted by the stack's stream consumer, a moment after the Start.
    await eventually(async () => expect(await openCount(`RESELLER#${resellerId}`)).toBe(1));
    // Its last report was more than a lease ago (two interims missed and a minute).
    const id = await sessionIdOf(c.code, nasId, s);
    const silentSince = new Date(Date.now() - (lease + 5) * 1000).toISOString();
    await Session.update({ id }, { set: { last_report_at: silentSince }, read: await getSession(id) });
    const { closed } = await sweepSilentSessions(Date.now());
    expect(closed).toBeGreaterThanOrEqual(1);
    expect((await getSession(await sessionIdOf(c.code, nasId, s, '02:00:00:00:02:0A')))?.close_reason).toBe(
      'stale',
    );
    expect(await openCount(`RESELLER#${resellerId}`)).toBe(0);
  });

  it("Accounting-On from a NAS closes that NAS's open sessions, and only those", async () => {
    const one = await hotspot();
    const two = await hotspot();
    const c1 = await code(one.resellerId);
    const c2 = await code(two.resellerId);
    const s1 = randomUUID();
    const s2 = randomUUID();
    await report('Start', c1.code, one.nasId, s1);
    await report('Start', c2.code, two.nasId, s2);
    await eventually(async () => expect(await openCount(`RESELLER#${one.resellerId}`)).toBe(1));
    await eventually(async () => expect(await openCount(`RESELLER#${two.resellerId}`)).toBe(1));
    const on = await acct({
      'Acct-Status-Type': 'Accounting-On',
      'NAS-Identifier': one.nasId,
      'NAS-IP-Address': '127.0.0.1',
      'Acct-Session-Id': '0',
    });
    expect(on.code).toBe('Accounting-Response');
    expect((await getSession(await sessionIdOf(c1.code, one.nasId, s1)))?.close_reason).toBe('nas_restart');
    expect((await getSession(await sessionIdOf(c2.code, two.nasId, s2)))?.status).toBe('open');
    expect(await openCount(`RESELLER#${one.resellerId}`)).toBe(0);
    expect(await openCount(`RESELLER#${two.resellerId}`)).toBe(1);
  });

  it('Accounting-On of a router with 300 open sessions is answered; the sweep closes what it left', async () => {
    const { resellerId, nasId } = await hotspot();
    const codes = await Promise.all(Array.from({ length: 30 }, () => code(resellerId)));
    const ids = Array.from({ length: 300 }, () => randomUUID());
    // Seeded in the table directly (300 Starts through radclient would take the test's time).
    for (let i = 0; i < ids.length; i += 30)
      await Promise.all(
        ids.slice(i, i + 30).map((id, j) =>
          account(
            {
              status: 'Start',
              uniqueId: id,
              userName: (codes[(i + j) % codes.length] as AccessCode).code,
              nasId,
              callingStationId: `02:00:00:00:${String(Math.floor((i + j) / 100)).padStart(2, '0')}:${String((i + j) % 100).padStart(2, '0')}`,
              totalBytes: 0,
              sessionTimeS: 0,
            },
            Date.now(),
          ),
        ),
      );
    await eventually(async () => expect(await openCount(`RESELLER#${resellerId}`)).toBe(300));

    const on = await acct({
      'Acct-Status-Type': 'Accounting-On',
      'NAS-Identifier': nasId,
      'NAS-IP-Address': '127.0.0.1',
      'Acct-Session-Id': '0',
    });
    // FreeRADIUS answers only once the API has, inside its own 2 s wait (its REST call's timeout).
    expect(on.code).toBe('Accounting-Response');

    await sweepSilentSessions(Date.now());
    expect(await openCount(`RESELLER#${resellerId}`)).toBe(0);
    for (const id of ids) expect((await getSession(id))?.close_reason).toBe('nas_restart');
  }, 120_000);

  it("counts a session once in its reseller's month, at its Start, however often the Start is resent", async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId);
    const s = randomUUID();
    await Promise.all([
      report('Start', c.code, nasId, s),
      report('Start', c.code, nasId, s),
      report('Start', c.code, nasId, s),
    ]);
    const month = new Date().toISOString().slice(0, 7);
    // Once the stack's stream consumer has counted it, it is counted once.
    const id = await sessionIdOf(c.code, nasId, s);
    await eventually(async () => expect(await getSession(id)).not.toHaveProperty('uncounted'));
    expect((await getMonthlyRevenue(resellerId, month)).sessions_count).toBe(1);
  });
});

async function openCount(scope: string): Promise<number> {
  return (await countersOf(scope)).open;
}

/** The Acct-Unique-Session-Id FreeRADIUS derives (the acct_unique policy of the shipped config). */
async function sessionIdOf(c: string, nasId: string, sessionId: string, _mac?: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('md5').update(`${c},${sessionId},127.0.0.1,${nasId},,`).digest('hex');
}

describe('from a voucher sold to a router that enforces it (the whole chain)', () => {
  it('accepts a generated voucher at its reseller hotspot, counts its sale once, and refuses it once its data is used', async () => {
    const admin = await tokenFor('admin');
    const resellerId = randomUUID();
    const allocated = await call<{ nas_id: string }>(edge.apiUrl, 'POST', '/api/v1/network/vlan/allocate', {
      token: admin,
      body: { reseller_id: resellerId, reseller_name: `Chez Edge ${Date.now()}`, site_count: 1 },
    });
    expect(allocated.status).toBe(201);
    const nasId = allocated.body.nas_id;
    routers.set(nasId, await givenUdpRouter(edge, resellerId, [nasId]));
    const forfait = SEED_FORFAITS[0] as {
      id: string;
      data_limit_mb: number;
      price_fcfa: number;
      mir_kbps: number;
    };
    const generated = await call<{ items: { code: string }[] }>(
      edge.apiUrl,
      'POST',
      '/api/v1/vouchers/generate',
      {
        token: admin,
        body: { n: 2, forfait_id: forfait.id, reseller_id: resellerId },
      },
    );
    expect(generated.status).toBe(201);
    const [voucher, other] = generated.body.items.map((i) => i.code) as [string, string];

    // Not at another reseller's hotspot.
    const elsewhere = await hotspot();
    expect(first(await login(voucher, elsewhere.nasId), 'Reply-Message')).toBe('Code inconnu');

    const accepted = await login(voucher, nasId);
    expect(accepted.code).toBe('Access-Accept');
    expect(Number(first(accepted, 'Session-Timeout'))).toBeGreaterThan(0);
    expect(first(accepted, 'Mikrotik-Rate-Limit')).toMatch(
      new RegExp(`^${forfait.mir_kbps}k/${forfait.mir_kbps}k `),
    );

    // Its first use sold it: redeemed, and its price in the reseller's month once, however often it logs in.
    await login(voucher, nasId);
    const month = new Date().toISOString().slice(0, 7);
    expect((await getMonthlyRevenue(resellerId, month)).total_fcfa).toBe(forfait.price_fcfa);
    const list = await call<{ items: { code: string; status: string }[] }>(
      edge.apiUrl,
      'GET',
      `/api/v1/vouchers?reseller_id=${resellerId}&page_size=100`,
      { token: admin },
    );
    expect(list.body.items.find((v) => v.code === voucher)?.status).toBe('redeemed');
    expect(list.body.items.find((v) => v.code === other)?.status).toBe('active');

    // Accounting reports the whole forfait used: the next login is refused with the reason.
    const session = randomUUID();
    await report('Start', voucher, nasId, session);
    const cap = forfait.data_limit_mb * MiB;
    await report('Stop', voucher, nasId, session, { input: cap / 4, output: cap - cap / 4 });
    const refused = await login(voucher, nasId);
    expect([refused.code, first(refused, 'Reply-Message')]).toEqual([
      'Access-Reject',
      'Volume de données épuisé',
    ]);
  });
});
