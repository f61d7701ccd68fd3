import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Nas } from '../../functions/store/nas.js';
import {
  createPlan,
  createSubscriber,
  getSubscriber,
  type PppoePlan,
  type PppoeSubscriber,
} from '../../functions/store/pppoe.js';
import { asRouter, type EdgeContext, edgeStack, givenUdpRouter, type TestRouter } from '../support/radius.js';

// PPPoE subscribers through the whole edge, for real: radclient as RouterOS's PPP server ->
// Debian's FreeRADIUS with the shipped config (pap, chap, mschap) -> the RADIUS service ->
// DynamoDB Local. Plans and subscribers are seeded into the stack's table.

let edge: EdgeContext;
const GiB = 2 ** 30;
const DAY = 86_400_000;
/** The expired state, as docs/pppoe.md states it (the router's firewall is set up with these names). */
const EXPIRED_ADDRESS_LIST = 'pppoe-expired';
const EXPIRED_POOL = 'pppoe-expired-pool';
const EXPIRED_KBPS = 256;
const EXPIRED_SESSION_S = 300;

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
});

let seq = 0;
interface Site {
  resellerId: string;
  nasId: string;
  router: TestRouter;
}

/** A reseller with one hotspot (its PPPoE server) and its router. */
async function site(): Promise<Site> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `pppoe_edge_${Date.now().toString(36)}_${seq}`;
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'Wisp', vlan_id: 10, kind: 'vlan' });
  return { resellerId, nasId, router: await givenUdpRouter(edge, resellerId, [nasId]) };
}

async function plan(resellerId: string, overrides: Partial<PppoePlan> = {}): Promise<PppoePlan> {
  const now = new Date().toISOString();
  const p: PppoePlan = {
    id: randomUUID(),
    reseller_id: resellerId,
    name: 'Maison 10M',
    price_fcfa: 15_000,
    period: 'month',
    down_kbps: 10_000,
    up_kbps: 4_000,
    fair_use: { gb: 1, down_kbps: 2_000, up_kbps: 1_000 },
    max_devices: 1,
    grace_days: 3,
    hidden: false,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
  expect(await createPlan(p)).toBe(true);
  return p;
}

async function subscriber(
  s: Site,
  p: PppoePlan,
  overrides: Partial<PppoeSubscriber> = {},
): Promise<PppoeSubscriber> {
  const now = new Date();
  const sub: PppoeSubscriber = {
    id: randomUUID(),
    reseller_id: s.resellerId,
    plan_id: p.id,
    msisdn: '+22507000000',
    name: 'Awa',
    username: `pp${randomBytes(5).toString('hex')}`,
    password: `pw${randomBytes(5).toString('hex')}`,
    nas_ids: [s.nasId],
    status: 'active',
    periods: 1,
    billing_day: now.getUTCDate(),
    paid_until: new Date(now.getTime() + 20 * DAY).toISOString(),
    period_started_at: new Date(now.getTime() - 10 * DAY).toISOString(),
    period_bytes: 0,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    ...overrides,
  };
  expect(await createSubscriber(sub)).toBe(true);
  return sub;
}

/** What RouterOS's PPP server puts in every request, beside the credentials. */
const ppp = (s: Site, sub: Pick<PppoeSubscriber, 'username'>) => ({
  'User-Name': sub.username,
  'NAS-Identifier': s.nasId,
  'Service-Type': 'Framed-User',
  'Framed-Protocol': 'PPP',
  'NAS-Port-Type': 'Ethernet',
  'Calling-Station-Id': '02:00:00:00:10:01',
});

const first = (reply: { attributes: Record<string, string[]> }, name: string) => reply.attributes[name]?.[0];

/**
 * An MS-CHAPv2 answer (RFC 2759) as a subscriber's CPE computes it: the authenticator's
 * challenge and the 50-byte MS-CHAP2-Response. radclient computes only MS-CHAPv1 (what
 * `radtest -t mschap` sends), so v2 is computed here; its MD4 and DES are legacy in OpenSSL 3,
 * hence a node with the legacy provider.
 */
function msChapV2(username: string, password: string): { challenge: string; response: string } {
  const authChallenge = randomBytes(16);
  const peerChallenge = randomBytes(16);
  const challengeHash = createHash('sha1')
    .update(Buffer.concat([peerChallenge, authChallenge, Buffer.from(username)]))
    .digest()
    .subarray(0, 8);
  const script = `
    const c = require('node:crypto');
    const [pw, ch] = process.argv.slice(1);
    const hash = Buffer.concat([c.createHash('md4').update(Buffer.from(pw, 'utf16le')).digest(), Buffer.alloc(5)]);
    const key = (b) => Buffer.from([b[0] >> 1, ((b[0] & 1) << 6) | (b[1] >> 2), ((b[1] & 3) << 5) | (b[2] >> 3),
      ((b[2] & 7) << 4) | (b[3] >> 4), ((b[3] & 15) << 3) | (b[4] >> 5), ((b[4] & 31) << 2) | (b[5] >> 6),
      ((b[5] & 63) << 1) | (b[6] >> 7), b[6] & 127].map((x) => x << 1));
    const out = [0, 7, 14].map((i) => c.createCipheriv('des-ecb', key(hash.subarray(i, i + 7)), null)
      .setAutoPadding(false).update(Buffer.from(ch, 'hex')));
    process.stdout.write(Buffer.concat(out).toString('hex'));`;
  const run = spawnSync(
    process.execPath,
    ['--openssl-legacy-provider', '-e', script, password, challengeHash.toString('hex')],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`MS-CHAPv2 computation failed: ${run.stderr}`);
  const response = Buffer.concat([
    Buffer.from([1, 0]),
    peerChallenge,
    Buffer.alloc(8),
    Buffer.from(run.stdout, 'hex'),
  ]);
  return { challenge: `0x${authChallenge.toString('hex')}`, response: `0x${response.toString('hex')}` };
}

describe('PPPoE logins through FreeRADIUS', () => {
  it('accepts PAP, CHAP, MS-CHAPv1 and MS-CHAPv2 with the plan speed, period end, interim and fixed address', async () => {
    const s = await site();
    const p = await plan(s.resellerId);
    const sub = await subscriber(s, p, { address: '100.64.10.7' });
    const { auth } = asRouter(edge, s.router);
    const v2 = msChapV2(sub.username, sub.password);
    // Session-Timeout runs to the period's end from when each login was answered: between these.
    const mostS = Math.ceil((Date.parse(sub.paid_until as string) - Date.now()) / 1000);
    const replies = {
      pap: await auth({ ...ppp(s, sub), 'User-Password': sub.password }),
      chap: await auth({ ...ppp(s, sub), 'CHAP-Password': sub.password }),
      // What `radtest -t mschap` sends: radclient computes the MS-CHAPv1 answer.
      mschap: await auth({ ...ppp(s, sub), 'MS-CHAP-Password': sub.password }),
      mschapv2: await auth({
        ...ppp(s, sub),
        'MS-CHAP-Challenge': v2.challenge,
        'MS-CHAP2-Response': v2.response,
      }),
    };
    const leastS = (Date.parse(sub.paid_until as string) - Date.now()) / 1000;
    for (const [how, reply] of Object.entries(replies)) {
      expect(reply.code, how).toBe('Access-Accept');
      expect(first(reply, 'Mikrotik-Rate-Limit'), how).toBe('4000k/10000k 0/0 0/0 0/0 8 4000k/10000k');
      expect(first(reply, 'Framed-IP-Address'), how).toBe('100.64.10.7');
      expect(Number(first(reply, 'Acct-Interim-Interval')), how).toBe(300);
      const timeout = Number(first(reply, 'Session-Timeout'));
      expect(timeout, how).toBeGreaterThanOrEqual(Math.floor(leastS));
      expect(timeout, how).toBeLessThanOrEqual(mostS);
      expect(reply.attributes['Mikrotik-Address-List'], how).toBeUndefined();
      // The password is checked here and never sent back.
      expect(reply.attributes['Cleartext-Password'], how).toBeUndefined();
    }
    // MS-CHAPv2's mutual authentication: the server proves it knew the password too.
    expect(first(replies.mschapv2, 'MS-CHAP2-Success')).toBeDefined();
  });

  it('rejects a wrong password by every method, an unknown name and a hotspot of another reseller', async () => {
    const s = await site();
    const other = await site();
    const p = await plan(s.resellerId);
    const sub = await subscriber(s, p);
    const { auth } = asRouter(edge, s.router);
    const v2 = msChapV2(sub.username, 'not-the-password');
    const replies = [
      await auth({ ...ppp(s, sub), 'User-Password': 'not-the-password' }),
      await auth({ ...ppp(s, sub), 'CHAP-Password': 'not-the-password' }),
      await auth({ ...ppp(s, sub), 'MS-CHAP-Password': 'not-the-password' }),
      await auth({ ...ppp(s, sub), 'MS-CHAP-Challenge': v2.challenge, 'MS-CHAP2-Response': v2.response }),
      await auth({ ...ppp(s, { username: 'ppnobody00' }), 'User-Password': sub.password }),
      await asRouter(edge, other.router).auth({ ...ppp(other, sub), 'User-Password': sub.password }),
    ];
    for (const reply of replies) {
      expect(reply.code).toBe('Access-Reject');
      expect(reply.attributes['Mikrotik-Rate-Limit']).toBeUndefined();
      expect(reply.attributes['Session-Timeout']).toBeUndefined();
    }
    expect(first(replies[4] as never, 'Reply-Message')).toBe('Identifiant ou mot de passe incorrect');
  });

  it('accepts a subscriber past its grace, and one never paid, into the expired address list and pool', async () => {
    const s = await site();
    const p = await plan(s.resellerId, { grace_days: 2 });
    const expired = await subscriber(s, p, { paid_until: new Date(Date.now() - 3 * DAY).toISOString() });
    const inGrace = await subscriber(s, p, { paid_until: new Date(Date.now() - 1 * DAY).toISOString() });
    const unpaid = await subscriber(s, p, { periods: 0, paid_until: undefined, billing_day: undefined });
    const { auth } = asRouter(edge, s.router);
    for (const sub of [expired, unpaid]) {
      const reply = await auth({ ...ppp(s, sub), 'CHAP-Password': sub.password });
      expect(reply.code).toBe('Access-Accept');
      expect(first(reply, 'Mikrotik-Address-List')).toBe(EXPIRED_ADDRESS_LIST);
      expect(first(reply, 'Framed-Pool')).toBe(EXPIRED_POOL);
      expect(first(reply, 'Mikrotik-Rate-Limit')).toBe(
        `${EXPIRED_KBPS}k/${EXPIRED_KBPS}k 0/0 0/0 0/0 8 ${EXPIRED_KBPS}k/${EXPIRED_KBPS}k`,
      );
      expect(Number(first(reply, 'Session-Timeout'))).toBe(EXPIRED_SESSION_S);
    }
    // Within its grace days: the plan's speed, until the grace ends (one day left of two).
    const grace = await auth({ ...ppp(s, inGrace), 'CHAP-Password': inGrace.password });
    expect(grace.code).toBe('Access-Accept');
    expect(grace.attributes['Mikrotik-Address-List']).toBeUndefined();
    expect(first(grace, 'Mikrotik-Rate-Limit')).toBe('4000k/10000k 0/0 0/0 0/0 8 4000k/10000k');
    expect(Number(first(grace, 'Session-Timeout'))).toBeGreaterThan(DAY / 1000 - 60);
    expect(Number(first(grace, 'Session-Timeout'))).toBeLessThanOrEqual(DAY / 1000 + 1);
  });

  it('rejects a suspended subscriber with a Reply-Message, even with the right password', async () => {
    const s = await site();
    const p = await plan(s.resellerId);
    const sub = await subscriber(s, p, { status: 'suspended' });
    const reply = await asRouter(edge, s.router).auth({ ...ppp(s, sub), 'User-Password': sub.password });
    expect(reply.code).toBe('Access-Reject');
    expect(first(reply, 'Reply-Message')).toBe('Abonnement suspendu, contactez votre fournisseur');
    expect(reply.attributes['Mikrotik-Rate-Limit']).toBeUndefined();
  });
});

describe('PPPoE accounting through FreeRADIUS', () => {
  /** A report of the session as RouterOS sends it: running totals (download is the output). */
  const report = (s: Site, sub: PppoeSubscriber, session: string, status: string, bytes: number) =>
    asRouter(edge, s.router).acct({
      ...ppp(s, sub),
      'Acct-Status-Type': status,
      'Acct-Session-Id': session,
      'NAS-IP-Address': s.router.ip,
      'Acct-Input-Octets': Math.floor(bytes / 4) % 2 ** 32,
      'Acct-Input-Gigawords': Math.floor(Math.floor(bytes / 4) / 2 ** 32),
      'Acct-Output-Octets': (bytes - Math.floor(bytes / 4)) % 2 ** 32,
      'Acct-Output-Gigawords': Math.floor((bytes - Math.floor(bytes / 4)) / 2 ** 32),
      'Acct-Session-Time': 600,
    });

  it('counts each session once toward the period under replayed and parallel reports, and the next login past the step is slower', async () => {
    const s = await site();
    const p = await plan(s.resellerId);
    const sub = await subscriber(s, p);
    const session = randomBytes(4).toString('hex');
    expect((await report(s, sub, session, 'Start', 0)).code).toBe('Accounting-Response');
    expect((await report(s, sub, session, 'Interim-Update', 300 * 2 ** 20)).code).toBe('Accounting-Response');
    // The same Interim replayed, five times at once: counted once.
    const replays = await Promise.all(
      Array.from({ length: 5 }, () => report(s, sub, session, 'Interim-Update', 300 * 2 ** 20)),
    );
    expect(replays.every((r) => r.code === 'Accounting-Response')).toBe(true);
    expect((await getSubscriber(sub.id))?.period_bytes).toBe(300 * 2 ** 20);
    // An older report arriving late adds nothing.
    await report(s, sub, session, 'Interim-Update', 100 * 2 ** 20);
    expect((await getSubscriber(sub.id))?.period_bytes).toBe(300 * 2 ** 20);
    // The Stop carries the session's total past the 1 GiB step: only the difference is added.
    await report(s, sub, session, 'Stop', 1.25 * GiB);
    expect((await getSubscriber(sub.id))?.period_bytes).toBe(1.25 * GiB);
    // A second session adds its own.
    const second = randomBytes(4).toString('hex');
    await Promise.all([
      report(s, sub, second, 'Interim-Update', 2 ** 20),
      report(s, sub, second, 'Interim-Update', 2 ** 20),
    ]);
    expect((await getSubscriber(sub.id))?.period_bytes).toBe(1.25 * GiB + 2 ** 20);
    // Past the fair-use step: the next login gets the step's slower speed.
    const next = await asRouter(edge, s.router).auth({ ...ppp(s, sub), 'CHAP-Password': sub.password });
    expect(next.code).toBe('Access-Accept');
    expect(first(next, 'Mikrotik-Rate-Limit')).toBe('1000k/2000k 0/0 0/0 0/0 8 1000k/2000k');
  });

  it('counts nothing of a report for another reseller’s subscriber, and answers it', async () => {
    const s = await site();
    const other = await site();
    const sub = await subscriber(s, await plan(s.resellerId));
    const reply = await asRouter(edge, other.router).acct({
      ...ppp(other, sub),
      'Acct-Status-Type': 'Interim-Update',
      'Acct-Session-Id': 'foreign1',
      'Acct-Output-Octets': 5 * 2 ** 20,
      'Acct-Session-Time': 60,
    });
    expect(reply.code).toBe('Accounting-Response');
    expect((await getSubscriber(sub.id))?.period_bytes).toBe(0);
  });
});
