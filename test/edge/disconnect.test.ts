import { createHash, randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { AccountEntity } from '../../functions/store/accounts.js';
import { countersOf } from '../../functions/store/counters.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { adminCli } from '../support/admin-cli.js';
import { type FakeNas, startFakeNas } from '../support/fake-nas.js';
import { call, newMsisdn, tokenFor } from '../support/http.js';
import {
  asRouter,
  type EdgeContext,
  edgeStack,
  givenUdpRouter,
  type RadiusAttributes,
  type TestRouter,
} from '../support/radius.js';
import { eventually } from '../support/wait.js';

// Disconnect (RFC 5176) through the whole edge: an operator (or a revoke, or a used-up data pool)
// asks the API -> the API records the request -> the relay run.sh starts next to FreeRADIUS in
// the run's stack claims it -> a fake router on a loopback port gets the Disconnect-Request and
// answers -> the relay reports -> the API closes the session. The stack retries on its test pace
// (test/support/global-setup.ts): 3 sends, 1 s then 2 s apart, 800 ms for the router to answer.

let edge: EdgeContext;
const MiB = 2 ** 20;
const nases: FakeNas[] = [];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
});

afterEach(async () => {
  await Promise.all(nases.splice(0).map((n) => n.close()));
});

/** Each hotspot's router, registered with its own secret at a loopback address of its own. */
const routers = new Map<string, TestRouter>();
const routerOf = (attrs: RadiusAttributes): TestRouter => {
  const r = routers.get(String(attrs['NAS-Identifier']));
  if (!r) throw new Error(`no router registered for ${String(attrs['NAS-Identifier'])}`);
  return r;
};
const auth = (attrs: RadiusAttributes) => asRouter(edge, routerOf(attrs)).auth(attrs);
const acct = (attrs: RadiusAttributes) => asRouter(edge, routerOf(attrs)).acct(attrs);

let seq = 0;
/** A reseller with one hotspot whose router (a fake NAS) takes Disconnect-Requests. */
async function router(): Promise<{ resellerId: string; nasId: string; nas: FakeNas }> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_dc_${Date.now().toString(36)}_${seq}`;
  const hotspot = {
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Disconnect',
    vlan_id: 10,
    kind: 'vlan',
  } as const;
  await Nas.put(hotspot);
  const registered = await givenUdpRouter(edge, resellerId, [nasId]);
  // The fake router checks every Disconnect-Request with its own secret, not the front's shared one.
  expect(registered.secret).not.toBe(edge.radiusSecret);
  const nas = await startFakeNas(registered.secret);
  nases.push(nas);
  await Nas.put({
    ...hotspot,
    // The fake router listens on 127.0.0.1; its RADIUS packets come from its own loopback address.
    coa_host: '127.0.0.1',
    coa_port: nas.port,
  });
  routers.set(nasId, registered);
  return { resellerId, nasId, nas };
}

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

async function code(
  resellerId: string,
  offer: Partial<AccessCode['offer']> = {},
  more: Partial<AccessCode> = {},
): Promise<AccessCode> {
  const c = paidCode(resellerId, offer, { code: newCode(), ...more });
  await Access.put(c);
  return c;
}

/** A device logged in and its router's Start: the live session the platform may cut. */
async function liveSession(
  c: string,
  nasId: string,
  mac = '02:00:00:00:00:01',
): Promise<{ id: string; acctSessionId: string }> {
  const login = await auth({
    'User-Name': c,
    'User-Password': c,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': mac,
  });
  expect(login.code).toBe('Access-Accept');
  const acctSessionId = randomUUID().slice(0, 8).toUpperCase();
  expect((await report('Start', c, nasId, acctSessionId, 0, mac)).code).toBe('Accounting-Response');
  // The Acct-Unique-Session-Id of the shipped acct_unique policy: the session's id in the API.
  const id = createHash('md5').update(`${c},${acctSessionId},127.0.0.1,${nasId},,`).digest('hex');
  return { id, acctSessionId };
}

function report(
  status: string,
  c: string,
  nasId: string,
  acctSessionId: string,
  bytes = 0,
  mac = '02:00:00:00:00:01',
) {
  return acct({
    'Acct-Status-Type': status,
    'User-Name': c,
    'NAS-Identifier': nasId,
    'NAS-IP-Address': '127.0.0.1',
    'Acct-Session-Id': acctSessionId,
    'Calling-Station-Id': mac,
    'Acct-Input-Octets': Math.floor(bytes / 4),
    'Acct-Output-Octets': bytes - Math.floor(bytes / 4),
    'Acct-Session-Time': 60,
  });
}

interface SessionView {
  status: 'open' | 'closed';
  close_reason?: string;
  total_bytes: number;
  disconnect: null | {
    status: string;
    reason: string;
    attempts: number;
    last_outcome?: string;
    error_cause?: number;
  };
}

const getSessionAs = (token: string, id: string) =>
  call<SessionView>(edge.apiUrl, 'GET', `/api/v1/sessions/${id}`, { token });
const disconnectAs = (token: string, id: string) =>
  call<SessionView>(edge.apiUrl, 'POST', `/api/v1/sessions/${id}/disconnect`, { token });

/** Polls the session (as `token`) until `done` holds (no deadline of its own: test/support/wait.ts). */
const sessionWhen = (token: string, id: string, done: (s: SessionView) => boolean): Promise<SessionView> =>
  eventually(async () => {
    const res = await getSessionAs(token, id);
    if (res.status === 200 && done(res.body)) return res.body;
    throw new Error(`session ${id} not there yet: ${JSON.stringify(res.body)}`);
  }, 100);

const openOf = async (resellerId: string) => (await countersOf(`RESELLER#${resellerId}`)).open;

describe('POST /sessions/{id}/disconnect, through the RADIUS front', () => {
  it("cuts the owner's live session: the router gets a signed Disconnect-Request naming it, and its ACK closes the session", async () => {
    const { resellerId, nasId, nas } = await router();
    const c = await code(resellerId);
    const session = await liveSession(c.code, nasId);
    const owner = await tokenFor('reseller', { resellerId });
    // Counted by the stack's stream consumer, a moment after the Start.
    await eventually(async () => expect(await openOf(resellerId)).toBe(1));

    const askedAt = Date.now();
    const asked = await disconnectAs(owner, session.id);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      status: 'open',
      disconnect: { status: 'pending', reason: 'operator' },
    });

    const [request] = await nas.waitFor(1);
    expect(request).toMatchObject({
      code: 'Disconnect-Request',
      authenticatorValid: true,
      messageAuthenticatorValid: true,
      attributes: {
        'User-Name': c.code,
        'Acct-Session-Id': session.acctSessionId,
        'NAS-Identifier': nasId,
        // The router's own address, as its packets came from it.
        'NAS-IP-Address': routers.get(nasId)?.ip,
      },
    });
    // Event-Timestamp: when the relay sent it (whole seconds), after the request and before now.
    const sentAt = (request?.attributes['Event-Timestamp'] as Date | undefined)?.getTime() ?? 0;
    expect(sentAt).toBeGreaterThanOrEqual(Math.floor(askedAt / 1000) * 1000);
    expect(sentAt).toBeLessThanOrEqual(Date.now());

    const closed = await sessionWhen(
      owner,
      session.id,
      (s) => s.status === 'closed' && s.disconnect?.status === 'acked',
    );
    expect(closed).toMatchObject({
      close_reason: 'disconnect',
      disconnect: { status: 'acked', attempts: 1, last_outcome: 'ack' },
    });
    expect(await openOf(resellerId)).toBe(0);
    // Its device's place is free: another device gets in on this one-device code.
    const next = await auth({
      'User-Name': c.code,
      'User-Password': c.code,
      'NAS-Identifier': nasId,
      'Calling-Station-Id': '02:00:00:00:00:02',
    });
    expect(next.code).toBe('Access-Accept');

    // The router's own Stop comes after: its bytes count once, and nothing closes twice.
    expect((await report('Stop', c.code, nasId, session.acctSessionId, 3 * MiB)).code).toBe(
      'Accounting-Response',
    );
    expect((await getAccessCode(c.code))?.used_bytes).toBe(3 * MiB);
    expect(await openOf(resellerId)).toBe(0);
    expect(nas.received).toHaveLength(1);
  });

  it('retries a NAK, then shows the disconnect failed with the router’s Error-Cause', async () => {
    const { resellerId, nasId, nas } = await router();
    nas.answer({ nak: 506 });
    const session = await liveSession((await code(resellerId)).code, nasId);
    const owner = await tokenFor('reseller', { resellerId });

    expect((await disconnectAs(owner, session.id)).status).toBe(202);

    const failed = await sessionWhen(owner, session.id, (s) => s.disconnect?.status === 'failed');
    expect(failed).toMatchObject({
      status: 'open',
      disconnect: { status: 'failed', attempts: 3, last_outcome: 'nak', error_cause: 506 },
    });
    expect(nas.received).toHaveLength(3);
    expect(nas.received.every((r) => r.authenticatorValid && r.messageAuthenticatorValid)).toBe(true);
    // Backoff: the second send a second after the first answer, the third two seconds after the second.
    const gaps = nas.received.slice(1).map((r, i) => r.at - (nas.received[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(900);
    expect(gaps[1]).toBeGreaterThanOrEqual(1900);
    await eventually(async () => expect(await openOf(resellerId)).toBe(1));

    // Asked again once failed: a new round of sends, and this time the router acknowledges.
    nas.answer('ack');
    expect((await disconnectAs(owner, session.id)).status).toBe(202);
    expect(
      await sessionWhen(owner, session.id, (s) => s.status === 'closed' && s.disconnect?.status === 'acked'),
    ).toMatchObject({
      disconnect: { status: 'acked', attempts: 1 },
    });
  });

  it('retries a router that does not answer, then shows the disconnect failed', async () => {
    const { resellerId, nasId, nas } = await router();
    nas.answer('silence');
    const session = await liveSession((await code(resellerId)).code, nasId);
    const owner = await tokenFor('reseller', { resellerId });

    expect((await disconnectAs(owner, session.id)).status).toBe(202);

    expect(await sessionWhen(owner, session.id, (s) => s.disconnect?.status === 'failed')).toMatchObject({
      status: 'open',
      disconnect: { status: 'failed', attempts: 3, last_outcome: 'timeout' },
    });
    expect(nas.received).toHaveLength(3);
  });

  it('closes the session when the router answers it has no such session (NAK, Error-Cause 503)', async () => {
    const { resellerId, nasId, nas } = await router();
    nas.answer({ nak: 503 });
    const session = await liveSession((await code(resellerId)).code, nasId);
    const admin = await tokenFor('admin');

    expect((await disconnectAs(admin, session.id)).status).toBe(202);

    expect(
      await sessionWhen(admin, session.id, (s) => s.status === 'closed' && s.disconnect?.status === 'acked'),
    ).toMatchObject({
      close_reason: 'disconnect',
      disconnect: { status: 'acked', last_outcome: 'nak', error_cause: 503 },
    });
    expect(nas.received).toHaveLength(1);
  });

  it('lets no other reseller see or cut a session (404, as if it did not exist), and no subscriber (403)', async () => {
    const { resellerId, nasId, nas } = await router();
    const session = await liveSession((await code(resellerId)).code, nasId);
    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    const subscriber = await tokenFor('subscriber');

    expect((await disconnectAs(other, session.id)).status).toBe(404);
    expect((await getSessionAs(other, session.id)).status).toBe(404);
    expect((await disconnectAs(other, 'f'.repeat(32))).status).toBe(404);
    expect((await disconnectAs(subscriber, session.id)).status).toBe(403);

    // No request was recorded, so the relay has nothing to claim: the router is never sent one.
    const owner = await tokenFor('reseller', { resellerId });
    expect((await getSessionAs(owner, session.id)).body).toMatchObject({ status: 'open', disconnect: null });
    expect(nas.received).toHaveLength(0);
  });

  it('answers 409 for a session that is closed already, and sends nothing', async () => {
    const { resellerId, nasId, nas } = await router();
    const c = await code(resellerId);
    const session = await liveSession(c.code, nasId);
    await report('Stop', c.code, nasId, session.acctSessionId, MiB);
    const owner = await tokenFor('reseller', { resellerId });

    const res = await disconnectAs(owner, session.id);
    expect([res.status, (res.body as unknown as { error: { code: string } }).error.code]).toEqual([
      409,
      'ERR_CONFLICT',
    ]);
    // No request was recorded, so the relay has nothing to claim: the router is never sent one.
    expect((await getSessionAs(owner, session.id)).body).toMatchObject({
      status: 'closed',
      disconnect: null,
    });
    expect(nas.received).toHaveLength(0);
  });

  it('sends one request and closes once when the same session is disconnected many times at once', async () => {
    const { resellerId, nasId, nas } = await router();
    const session = await liveSession((await code(resellerId)).code, nasId);
    const owner = await tokenFor('reseller', { resellerId });
    const admin = await tokenFor('admin');

    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => disconnectAs(i % 2 ? owner : admin, session.id)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));

    // Acked at its first attempt: nothing is left to resend.
    expect(
      await sessionWhen(owner, session.id, (s) => s.status === 'closed' && s.disconnect?.status === 'acked'),
    ).toMatchObject({ disconnect: { attempts: 1 } });
    expect(nas.received).toHaveLength(1);
    expect(await openOf(resellerId)).toBe(0);
  });
});

describe('automatic disconnects', () => {
  it('revoking a code cuts each of its live sessions and refuses it from then on', async () => {
    const { resellerId, nasId, nas } = await router();
    const c = await code(resellerId, { max_devices: 2 });
    const a = await liveSession(c.code, nasId, '02:00:00:00:00:0A');
    const b = await liveSession(c.code, nasId, '02:00:00:00:00:0B');
    const owner = await tokenFor('reseller', { resellerId });
    const other = await tokenFor('reseller', { resellerId: randomUUID() });

    const refused = await call(edge.apiUrl, 'POST', `/api/v1/access/${c.code}/revoke`, { token: other });
    expect(refused.status).toBe(404);

    const revoked = await call<{ disconnects: { session_id: string }[] }>(
      edge.apiUrl,
      'POST',
      `/api/v1/access/${c.code.toLowerCase()}/revoke`,
      { token: owner },
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.disconnects.map((d) => d.session_id).sort()).toEqual([a.id, b.id].sort());

    const received = await nas.waitFor(2);
    expect(received.map((r) => r.attributes['Acct-Session-Id']).sort()).toEqual(
      [a.acctSessionId, b.acctSessionId].sort(),
    );
    for (const s of [a, b])
      expect(
        await sessionWhen(owner, s.id, (v) => v.status === 'closed' && v.disconnect?.status === 'acked'),
      ).toMatchObject({
        disconnect: { reason: 'code_revoked', status: 'acked' },
      });
    const again = await auth({ 'User-Name': c.code, 'User-Password': c.code, 'NAS-Identifier': nasId });
    expect([again.code, again.attributes['Reply-Message']?.[0]]).toEqual(['Access-Reject', 'Code révoqué']);
  });

  it('revoking an unused voucher: its reseller’s list shows it revoked, and redemption refuses it', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Revoke', country: 'CI' });
    const owner = await tokenFor('reseller', { resellerId });
    const made = await call<{ batch_id: string }>(edge.apiUrl, 'POST', '/api/v1/vouchers/batches', {
      token: owner,
      body: { forfait_id: (SEED_FORFAITS[0] as { id: string }).id, reseller_id: resellerId, n: 2 },
    });
    expect(made.status).toBe(201);
    type Listed = { items: { code: string; revoked_at?: string }[] };
    const list = () =>
      call<Listed>(edge.apiUrl, 'GET', `/api/v1/vouchers?reseller_id=${resellerId}&status=active`, {
        token: owner,
      });
    const [code, kept] = (await list()).body.items.map((v) => v.code) as [string, string];
    const revoked = await call<{ revoked_at: string }>(edge.apiUrl, 'POST', `/api/v1/access/${code}/revoke`, {
      token: owner,
    });
    expect(revoked.status).toBe(200);
    const after = (await list()).body.items;
    expect(after.find((v) => v.code === code)?.revoked_at).toBe(revoked.body.revoked_at);
    expect(after.find((v) => v.code === kept)?.revoked_at).toBeUndefined();
    // Revoking again keeps the first time.
    const twice = await call<{ revoked_at: string }>(edge.apiUrl, 'POST', `/api/v1/access/${code}/revoke`, {
      token: owner,
    });
    expect(twice.body.revoked_at).toBe(revoked.body.revoked_at);
    const subscriber = await tokenFor('subscriber');
    const refused = await call(edge.apiUrl, 'POST', '/api/v1/vouchers/redeem', {
      token: subscriber,
      body: { code },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'ERR_CONFLICT', message: 'Voucher revoked' } });
    const other = await call(edge.apiUrl, 'POST', '/api/v1/vouchers/redeem', {
      token: subscriber,
      body: { code: kept },
    });
    expect(other.status).toBe(200);
  });

  it("cuts the code's other devices when one device's report shows the shared data used up", async () => {
    const { resellerId, nasId, nas } = await router();
    const c = await code(resellerId, { max_devices: 2, data_limit_mb: 100 });
    const a = await liveSession(c.code, nasId, '02:00:00:00:00:0A');
    const b = await liveSession(c.code, nasId, '02:00:00:00:00:0B');
    const owner = await tokenFor('reseller', { resellerId });

    // B used a little; then A's interim reports the rest of the pool.
    await report('Interim-Update', c.code, nasId, b.acctSessionId, 10 * MiB, '02:00:00:00:00:0B');
    // Within the pool: no request recorded for either session, so none to send.
    for (const s of [a, b])
      expect((await getSessionAs(owner, s.id)).body).toMatchObject({ status: 'open', disconnect: null });
    await report('Interim-Update', c.code, nasId, a.acctSessionId, 90 * MiB, '02:00:00:00:00:0A');

    const [request] = await nas.waitFor(1);
    expect(request?.attributes['Acct-Session-Id']).toBe(b.acctSessionId);
    expect(
      await sessionWhen(owner, b.id, (s) => s.status === 'closed' && s.disconnect?.status === 'acked'),
    ).toMatchObject({
      disconnect: { reason: 'data_used', status: 'acked' },
    });
    // A's own router cuts A at its Mikrotik-Total-Limit: no request is recorded for A, so none is sent.
    expect((await getSessionAs(owner, a.id)).body).toMatchObject({ status: 'open', disconnect: null });
    expect(nas.received).toHaveLength(1);
  });

  it("removing a subscriber's account revokes its codes and cuts their live sessions", async () => {
    const { resellerId, nasId, nas } = await router();
    const msisdn = newMsisdn();
    const accountId = randomUUID();
    await AccountEntity.put({
      id: accountId,
      msisdn,
      role: 'subscriber',
      created_at: new Date().toISOString(),
    });
    const bought = await code(resellerId, {}, { subscriber_id: accountId });
    const session = await liveSession(bought.code, nasId);
    const owner = await tokenFor('reseller', { resellerId });

    const out = await adminCli(() => edge.table)('accounts', 'remove', '--msisdn', msisdn);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('its 1 access code(s) revoked, 1 live session(s) being disconnected');

    const [request] = await nas.waitFor(1);
    expect(request?.attributes['Acct-Session-Id']).toBe(session.acctSessionId);
    expect(
      await sessionWhen(owner, session.id, (s) => s.status === 'closed' && s.disconnect?.status === 'acked'),
    ).toMatchObject({
      disconnect: { reason: 'account_removed', status: 'acked' },
    });
    expect((await getAccessCode(bought.code))?.revoked_at).toBeDefined();
  });
});
