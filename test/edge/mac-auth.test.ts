import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import {
  Access,
  type AccessCode,
  getAccessCode,
  revokeAccessCode,
} from '../../functions/store/access-codes.js';
import { getDisconnect } from '../../functions/store/disconnects.js';
import { bindingsOfMac } from '../../functions/store/mac-bindings.js';
import { Nas } from '../../functions/store/nas.js';
import { getSession } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { call, tokenFor } from '../support/http.js';
import { asRouter, type EdgeContext, edgeStack, givenUdpRouter, type TestRouter } from '../support/radius.js';

// Returning devices through the whole edge: the portal's consent (HTTP) binds a MAC to a code,
// then radclient plays a RouterOS hotspot with `login-by=mac` against Debian's FreeRADIUS with
// the shipped config, in front of the local API and DynamoDB Local.

let edge: EdgeContext;
const MiB = 2 ** 20;
/** What the mikrotik script sets as the hotspot profile's `mac-auth-password` (RADIUS_MAC_AUTH_PASSWORD). */
const MAC_AUTH_PASSWORD = 'hotspot-mac';
const REFUSED = 'Appareil non reconnu, saisissez votre code';

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
});

let seq = 0;
/** A reseller with one MikroTik hotspot and its registered UDP router. */
async function hotspot(): Promise<{ resellerId: string; nasId: string; router: TestRouter }> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_mac_${Date.now().toString(36)}_${seq}`;
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'Mac', vlan_id: 10, kind: 'vlan' });
  return { resellerId, nasId, router: await givenUdpRouter(edge, resellerId, [nasId]) };
}

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

async function code(resellerId: string, overrides: Partial<AccessCode> = {}): Promise<AccessCode> {
  const c = paidCode(resellerId, { data_limit_mb: 1024, max_devices: 2 }, { code: newCode(), ...overrides });
  await Access.put(c);
  return c;
}

const randomMac = (): string =>
  (randomUUID().replace(/-/g, '').slice(0, 12).match(/../g) as string[]).join(':').toUpperCase();

/** The portal's consent ("Reconnecter cet appareil automatiquement"). */
const remember = (nasId: string, c: string, mac: string) =>
  call(edge.apiUrl, 'POST', '/api/v1/access/devices', { body: { nas_id: nasId, code: c, mac } });

/** The portal's "Oublier cet appareil". */
const forget = (nasId: string, c: string, mac: string) =>
  call(edge.apiUrl, 'POST', '/api/v1/access/devices/forget', { body: { nas_id: nasId, code: c, mac } });

/** A RouterOS MAC login: User-Name = the MAC (as RouterOS writes it), password = mac-auth-password. */
const macLogin = (router: TestRouter, nasId: string, mac: string, password = MAC_AUTH_PASSWORD) =>
  asRouter(edge, router).auth({
    'User-Name': mac,
    'User-Password': password,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': mac,
  });

const codeLogin = (router: TestRouter, nasId: string, c: string, mac: string) =>
  asRouter(edge, router).auth({
    'User-Name': c,
    'User-Password': c,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': mac,
  });

const first = (reply: { attributes: Record<string, string[]> }, name: string) => reply.attributes[name]?.[0];

describe('a device remembered for its code', () => {
  it("logs in by its MAC at its reseller's hotspot with the code's time, rate and data share", async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const mac = randomMac();

    const bound = await remember(nasId, c.code, mac);
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ code: c.code, mac, nas_id: nasId, bound_devices: 1, max_devices: 2 });

    const reply = await macLogin(router, nasId, mac);
    expect(reply.code).toBe('Access-Accept');
    // An hour at most, then authorized again (the code has a day).
    expect(Number(first(reply, 'Session-Timeout'))).toBe(3600);
    expect(first(reply, 'Mikrotik-Rate-Limit')).toBe('2048k/2048k 0/0 0/0 0/0 8 512k/512k');
    // The multi-device rule: two places, nothing reserved yet, so half of the 1 GiB.
    expect(Number(first(reply, 'Mikrotik-Total-Limit'))).toBe(512 * MiB);
    // The device holds one of the code's places, under the same key as a login with the code.
    const stored = await getAccessCode(c.code);
    expect(Object.keys(stored?.devices ?? {})).toEqual([`${nasId}/${mac}`]);
    expect(stored?.started_at).toBeDefined();

    // A second device typing the code gets what is left unreserved: the rule still holds.
    const other = await codeLogin(router, nasId, c.code, randomMac());
    expect(other.code).toBe('Access-Accept');
    expect(Number(first(other, 'Mikrotik-Total-Limit'))).toBe(512 * MiB);
  });

  it("counts the MAC session's accounting against the code, and names the MAC in its Disconnect", async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const mac = randomMac();
    expect((await remember(nasId, c.code, mac)).status).toBe(200);
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Accept');

    const sessionId = randomUUID();
    const acct = await asRouter(edge, router).acct({
      'Acct-Status-Type': 'Start',
      'User-Name': mac,
      'NAS-Identifier': nasId,
      'NAS-IP-Address': '127.0.0.1',
      'Acct-Session-Id': sessionId,
      'Calling-Station-Id': mac,
      'Acct-Input-Octets': 1000,
      'Acct-Output-Octets': 4000,
      'Acct-Session-Time': 60,
    });
    expect(acct.code).toBe('Accounting-Response');
    expect((await getAccessCode(c.code))?.used_bytes).toBe(5000);
    // FreeRADIUS's Acct-Unique-Session-Id (deploy/freeradius/policy/accounting): the MAC is its User-Name.
    const id = createHash('md5').update(`${mac},${sessionId},127.0.0.1,${nasId},,`).digest('hex');
    expect(await getSession(id)).toMatchObject({
      code: c.code,
      reseller_id: resellerId,
      user_name: mac,
      device: `${nasId}/${mac}`,
      status: 'open',
    });

    // The router knows the session by the MAC: that is the User-Name its Disconnect-Request carries.
    const owner = await tokenFor('reseller', { resellerId, sub: randomUUID() });
    const cut = await call(edge.apiUrl, 'POST', `/api/v1/sessions/${id}/disconnect`, { token: owner });
    expect(cut.status).toBe(202);
    expect(await getDisconnect(id)).toMatchObject({ user_name: mac, nas_id: nasId });
  });

  it("is refused at another reseller's hotspot, with the fixed message", async () => {
    const mine = await hotspot();
    const theirs = await hotspot();
    const c = await code(mine.resellerId);
    const mac = randomMac();
    expect((await remember(mine.nasId, c.code, mac)).status).toBe(200);

    const reply = await macLogin(theirs.router, theirs.nasId, mac);
    expect(reply.code).toBe('Access-Reject');
    expect(first(reply, 'Reply-Message')).toBe(REFUSED);
    expect((await getAccessCode(c.code))?.devices).toEqual({});
  });

  it('is refused once forgotten, and after its code is revoked', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const mac = randomMac();
    expect((await remember(nasId, c.code, mac)).status).toBe(200);
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Accept');

    const forgotten = await forget(nasId, c.code, mac);
    expect(forgotten).toMatchObject({ status: 200, body: { forgotten: true } });
    const after = await macLogin(router, nasId, mac);
    expect(after.code).toBe('Access-Reject');
    expect(first(after, 'Reply-Message')).toBe(REFUSED);
    expect(await bindingsOfMac(resellerId, mac)).toEqual([]);
    expect((await getAccessCode(c.code))?.bound_devices).toBe(0);
    // Forgetting again changes nothing.
    expect(await forget(nasId, c.code, mac)).toMatchObject({ status: 200, body: { forgotten: false } });

    const revoked = await code(resellerId);
    const mac2 = randomMac();
    expect((await remember(nasId, revoked.code, mac2)).status).toBe(200);
    await revokeAccessCode(revoked.code, new Date().toISOString());
    const refused = await macLogin(router, nasId, mac2);
    expect(refused.code).toBe('Access-Reject');
    expect(first(refused, 'Reply-Message')).toBe(REFUSED);
  });

  it('is refused with an expired code, or with another MAC-auth password', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const mac = randomMac();
    expect((await remember(nasId, c.code, mac)).status).toBe(200);
    expect((await macLogin(router, nasId, mac, 'not-the-password')).code).toBe('Access-Reject');
    expect((await getAccessCode(c.code))?.devices).toEqual({});

    const past = new Date(Date.now() - 1000).toISOString();
    await Access.update(
      { code: c.code },
      { set: { started_at: new Date(Date.now() - 3600_000).toISOString(), expires_at: past } },
    );
    const expired = await macLogin(router, nasId, mac);
    expect(expired.code).toBe('Access-Reject');
    expect(first(expired, 'Reply-Message')).toBe(REFUSED);
  });

  it('is refused when the MAC is not the device asking (User-Name differs from Calling-Station-Id)', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const mac = randomMac();
    expect((await remember(nasId, c.code, mac)).status).toBe(200);
    const reply = await asRouter(edge, router).auth({
      'User-Name': mac,
      'User-Password': MAC_AUTH_PASSWORD,
      'NAS-Identifier': nasId,
      'Calling-Station-Id': randomMac(),
    });
    expect(reply.code).toBe('Access-Reject');
    expect(first(reply, 'Reply-Message')).toBe('Code inconnu');
  });

  it('is no code guess: neither counted nor stopped by the wrong-code budget', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const mac = randomMac();
    // Refused MAC logins (every device joining sends one) count nothing: the code still gets in.
    for (let i = 0; i < 22; i++)
      expect(first(await macLogin(router, nasId, mac), 'Reply-Message')).toBe(REFUSED);
    expect((await codeLogin(router, nasId, c.code, mac)).code).toBe('Access-Accept');

    // A device past its wrong-code budget is refused codes, but its MAC login is no guess.
    const guesser = randomMac();
    expect((await remember(nasId, c.code, guesser)).status).toBe(200);
    let typed = await codeLogin(router, nasId, 'WRONGCODE0', guesser);
    // The budget (20 a device) counts in the clock's 10-minute windows: a run that crosses a
    // window's end starts counting again, so twice the limit and more reaches it within one.
    for (let i = 1; i < 45 && first(typed, 'Reply-Message') === 'Code inconnu'; i++)
      typed = await codeLogin(router, nasId, `WRONGCODE${i}`, guesser);
    expect(first(typed, 'Reply-Message')).toBe("Trop d'essais de codes, réessayez plus tard");
    expect((await macLogin(router, nasId, guesser)).code).toBe('Access-Accept');
  });

  it('binds at most max_devices devices per code: a third is refused, racing ones included', async () => {
    const { resellerId, nasId } = await hotspot();
    const c = await code(resellerId);
    const macs = [randomMac(), randomMac(), randomMac(), randomMac()];
    const answers = await Promise.all(macs.map((m) => remember(nasId, c.code, m)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body).toMatchObject({ error: { code: 'ERR_DEVICE_LIMIT' } });
    expect((await getAccessCode(c.code))?.bound_devices).toBe(2);

    // Binding the same device again is no new place.
    const again = macs[answers.findIndex((a) => a.status === 200)] as string;
    expect((await remember(nasId, c.code, again)).status).toBe(200);
    expect((await getAccessCode(c.code))?.bound_devices).toBe(2);
  });

  it("is listed for the code's subscriber, who forgets it through the API; nobody else can", async () => {
    const { resellerId, nasId, router } = await hotspot();
    const subscriberId = randomUUID();
    const c = await code(resellerId, { subscriber_id: subscriberId });
    const mac = randomMac();
    expect((await remember(nasId, c.code, mac)).status).toBe(200);
    const token = await tokenFor('subscriber', { sub: subscriberId });
    const stranger = await tokenFor('subscriber', { sub: randomUUID() });

    const mine = await call(edge.apiUrl, 'GET', '/api/v1/access/devices/mine', { token });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ items: [{ code: c.code, mac, nas_id: nasId }] });
    const theirs = await call(edge.apiUrl, 'GET', '/api/v1/access/devices/mine', { token: stranger });
    expect(theirs.body).toEqual({ items: [] });

    const path = `/api/v1/access/${c.code}/devices/${mac}`;
    expect((await call(edge.apiUrl, 'DELETE', path, { token: stranger })).status).toBe(404);
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Accept');
    expect(await call(edge.apiUrl, 'DELETE', path, { token })).toMatchObject({
      status: 200,
      body: { forgotten: true },
    });
    expect((await call(edge.apiUrl, 'DELETE', path, { token })).status).toBe(404);
    expect((await macLogin(router, nasId, mac)).code).toBe('Access-Reject');
  });
});
