import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, type AccessCode, bytesOfMb, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas, type NasVendor } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { paidCode } from '../support/access.js';
import { call, newMsisdn, login as signIn, tokenFor } from '../support/http.js';
import {
  asRouter,
  type EdgeContext,
  edgeStack,
  givenUdpRouter,
  type RadiusAttributes,
  radclientBatch,
  type TestRouter,
} from '../support/radius.js';

// The red-team findings of the RADIUS edge, each replayed as the attack it was, through the
// whole chain: radclient -> the shipped FreeRADIUS -> the local API -> DynamoDB Local.

let edge: EdgeContext;

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  // The stack's SMS outbox, where a buyer's SMS code arrives.
  process.env.SMS_OUTBOX = edge.smsOutbox;
  resetConfig();
  setDdb(undefined);
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
const first = (reply: { attributes: Record<string, string[]> }, name: string) => reply.attributes[name]?.[0];

let seq = 0;
async function nas(resellerId: string, vendor?: NasVendor): Promise<string> {
  seq += 1;
  const nasId = `access_rt_${Date.now().toString(36)}_${seq}`;
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'RT',
    vlan_id: 10,
    kind: 'vlan',
    vendor,
  });
  routers.set(nasId, await givenUdpRouter(edge, resellerId, [nasId]));
  return nasId;
}

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');

async function code(resellerId: string, overrides: Partial<AccessCode> = {}): Promise<AccessCode> {
  const c = paidCode(resellerId, { data_limit_mb: 1, max_devices: 1 }, { code: newCode(), ...overrides });
  await Access.put(c);
  return c;
}

const login = (c: string, nasId: string, mac: string, password = c) =>
  auth({ 'User-Name': c, 'User-Password': password, 'NAS-Identifier': nasId, 'Calling-Station-Id': mac });

function report(
  status: string,
  c: string,
  nasId: string,
  sessionId: string,
  mac: string,
  bytes = 0,
  extra: RadiusAttributes = {},
) {
  return acct({
    'Acct-Status-Type': status,
    'User-Name': c,
    'NAS-Identifier': nasId,
    'NAS-IP-Address': '127.0.0.1',
    'Acct-Session-Id': sessionId,
    'Calling-Station-Id': mac,
    'Acct-Input-Octets': 0,
    'Acct-Output-Octets': bytes,
    'Acct-Session-Time': 60,
    ...extra,
  });
}

/** The data limit a MikroTik accept carries (low 32 bits + gigawords). */
const totalLimit = (reply: { attributes: Record<string, string[]> }) =>
  Number(first(reply, 'Mikrotik-Total-Limit') ?? Number.NaN) +
  Number(first(reply, 'Mikrotik-Total-Limit-Gigawords') ?? 0) * 2 ** 32;

describe('red team: M1, M2, M3 (data and devices)', () => {
  it('M1: two devices of a max_devices=2 code logging in again while the other is on never pass the cap', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const cap = bytesOfMb(1);
    const c = await code(resellerId, {
      offer: { duration_hours: 24, data_limit_mb: 1, cir_kbps: 512, mir_kbps: 2048, max_devices: 2 },
    });
    const macs = { A: '02:00:00:00:10:0A', B: '02:00:00:00:10:0B' } as const;
    // The router enforces each grant: a session uses exactly what it was given, reported in two steps.
    const open: Record<string, { id: string; grant: number }> = {};
    const play = async (who: keyof typeof macs) => {
      const reply = await login(c.code, nasId, macs[who]);
      if (reply.code !== 'Access-Accept') return false;
      const grant = totalLimit(reply);
      expect(grant).toBeGreaterThanOrEqual(1);
      // The device's previous session ends at the router (it logged in again): its Stop comes now.
      const previous = open[who];
      if (previous) await report('Stop', c.code, nasId, previous.id, macs[who], previous.grant);
      const id = randomUUID();
      open[who] = { id, grant };
      await report('Start', c.code, nasId, id, macs[who]);
      await report('Interim-Update', c.code, nasId, id, macs[who], Math.floor(grant / 2));
      return true;
    };
    // The finding's pattern: A, B, then A again and again while B is on.
    for (const who of ['A', 'B', 'A', 'A', 'B', 'A', 'B', 'A'] as const) await play(who);
    // Every open session then uses its whole grant.
    for (const [who, s] of Object.entries(open))
      await report('Stop', c.code, nasId, s.id, macs[who as keyof typeof macs], s.grant);
    const used = (await getAccessCode(c.code))?.used_bytes ?? 0;
    expect(used).toBeLessThanOrEqual(cap);
    // And the rule is not stingy: more than 90% of the cap could be used.
    expect(used).toBeGreaterThan(cap * 0.9);
  });

  it('M2: a code with fewer bytes left than its devices is never sent a limit of 0 (no limit)', async () => {
    const resellerId = randomUUID();
    const mikrotik = await nas(resellerId);
    const coova = await nas(resellerId, 'coova');
    const offer = { duration_hours: 24, data_limit_mb: 1, cir_kbps: 512, mir_kbps: 2048, max_devices: 3 };
    const c = await code(resellerId, { offer, used_bytes: bytesOfMb(1) - 2 });
    const a = await login(c.code, mikrotik, '02:00:00:00:11:0A');
    expect(a.code).toBe('Access-Accept');
    expect(totalLimit(a)).toBe(1);
    const b = await login(c.code, coova, '02:00:00:00:11:0B');
    expect(b.code).toBe('Access-Accept');
    expect(first(b, 'ChilliSpot-Max-Total-Octets')).toBe('1');
    // Nothing left unreserved: the third device is refused, not given 0.
    const third = await login(c.code, mikrotik, '02:00:00:00:11:0C');
    expect([third.code, first(third, 'Reply-Message')]).toEqual([
      'Access-Reject',
      'Volume de données épuisé',
    ]);
    expect(third.attributes['Mikrotik-Total-Limit']).toBeUndefined();
  });

  it('M3: the same MAC at two hotspots is two devices: no double data, and a Stop at one keeps the other', async () => {
    const resellerId = randomUUID();
    const one = await nas(resellerId);
    const two = await nas(resellerId);
    const mac = '02:00:00:00:12:0A';
    const single = await code(resellerId);
    expect((await login(single.code, one, mac)).code).toBe('Access-Accept');
    const again = await login(single.code, two, mac);
    expect([again.code, first(again, 'Reply-Message')]).toEqual([
      'Access-Reject',
      "Nombre maximal d'appareils atteint",
    ]);

    const cap = bytesOfMb(1);
    const shared = await code(resellerId, {
      offer: { duration_hours: 24, data_limit_mb: 1, cir_kbps: 512, mir_kbps: 2048, max_devices: 2 },
    });
    const atOne = await login(shared.code, one, mac);
    const atTwo = await login(shared.code, two, mac);
    expect(totalLimit(atOne) + totalLimit(atTwo)).toBeLessThanOrEqual(cap);
    const s = randomUUID();
    await report('Start', shared.code, two, s, mac);
    await report('Stop', shared.code, two, s, mac, 1000);
    const devices = Object.keys((await getAccessCode(shared.code))?.devices ?? {});
    expect(devices).toEqual([`${one}/${mac}`]);
  });
});

describe('red team: L1 (a wrong password burns nothing)', () => {
  it('L1: a wrong PAP password or CHAP answer leaves the voucher unredeemed; the right one then redeems it once', async () => {
    const admin = await tokenFor('admin');
    const resellerId = randomUUID();
    const allocated = await call<{ nas_id: string }>(edge.apiUrl, 'POST', '/api/v1/network/vlan/allocate', {
      token: admin,
      body: { reseller_id: resellerId, reseller_name: `Chez RT ${Date.now()}`, site_count: 1 },
    });
    expect(allocated.status).toBe(201);
    const nasId = allocated.body.nas_id;
    routers.set(nasId, await givenUdpRouter(edge, resellerId, [nasId]));
    const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
    const generated = await call<{ items: { code: string }[] }>(
      edge.apiUrl,
      'POST',
      '/api/v1/vouchers/generate',
      {
        token: admin,
        body: { n: 1, forfait_id: forfait.id, reseller_id: resellerId },
      },
    );
    const voucher = generated.body.items[0]?.code as string;
    const mac = '02:00:00:00:13:0A';

    const pap = await login(voucher, nasId, mac, 'WRONGWRONG');
    const chap = await auth({
      'User-Name': voucher,
      'CHAP-Password': 'WRONGWRONG',
      'NAS-Identifier': nasId,
      'Calling-Station-Id': mac,
    });
    expect([pap.code, chap.code]).toEqual(['Access-Reject', 'Access-Reject']);
    const untouched = await getAccessCode(voucher);
    expect(untouched?.started_at).toBeUndefined();
    expect(untouched?.devices).toEqual({});
    const month = new Date().toISOString().slice(0, 7);
    expect((await getMonthlyRevenue(resellerId, month)).total_fcfa).toBe(0);

    const right = await login(voucher, nasId, mac);
    expect([right.code, first(right, 'Reply-Message')]).toEqual(['Access-Accept', undefined]);
    // Another device's wrong password, then the same device again: still one sale.
    expect((await login(voucher, nasId, '02:00:00:00:13:0B', 'WRONGWRONG')).code).toBe('Access-Reject');
    await login(voucher, nasId, mac);
    expect((await getAccessCode(voucher))?.started_at).toBeDefined();
    expect((await getMonthlyRevenue(resellerId, month)).total_fcfa).toBe(forfait.price_fcfa);
  });
});

describe('red team: M5 (what the API does not know is ignored, never a silent refusal)', () => {
  const unknown = { 'Attr-26.99999.1': '0x01', Class: Array.from({ length: 17 }, (_, i) => `class-${i}`) };

  it('M5: a login carrying an unknown vendor attribute and 17 Class values is accepted', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const c = await code(resellerId);
    const reply = await auth({
      'User-Name': c.code,
      'User-Password': c.code,
      'NAS-Identifier': nasId,
      'Calling-Station-Id': '02:00:00:00:14:0A',
      ...unknown,
    });
    expect(reply.code).toBe('Access-Accept');
  });

  it('M5: accounting with an unknown attribute and 17 Class values is answered and counted', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const c = await code(resellerId);
    const mac = '02:00:00:00:14:0B';
    const s = randomUUID();
    expect((await report('Start', c.code, nasId, s, mac, 0, unknown)).code).toBe('Accounting-Response');
    expect((await report('Interim-Update', c.code, nasId, s, mac, 5000, unknown)).code).toBe(
      'Accounting-Response',
    );
    expect((await getAccessCode(c.code))?.used_bytes).toBe(5000);
  });

  it('M5: Acct-Status-Type = Failed, or no NAS id, is answered (the NAS stops resending) and changes nothing', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const c = await code(resellerId);
    const failed = await report('Failed', c.code, nasId, randomUUID(), '02:00:00:00:14:0C', 9000);
    expect(failed.code).toBe('Accounting-Response');
    // From the registered router, without a NAS-Identifier.
    const anonymous = await asRouter(edge, routers.get(nasId) as TestRouter).acct({
      'Acct-Status-Type': 'Accounting-On',
      'Acct-Session-Id': '0',
    });
    expect(anonymous.code).toBe('Accounting-Response');
    expect((await getAccessCode(c.code))?.used_bytes).toBe(0);
  });

  it('M5: an Access-Request the API cannot use gets an Access-Reject with a Reply-Message', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const c = await code(resellerId);
    const noNas = await asRouter(edge, routers.get(nasId) as TestRouter).auth({
      'User-Name': c.code,
      'User-Password': c.code,
    });
    expect([noNas.code, first(noNas, 'Reply-Message')]).toEqual([
      'Access-Reject',
      'Demande de connexion invalide',
    ]);
    const long = 'X'.repeat(200);
    const huge = await auth({ 'User-Name': long, 'User-Password': long, 'NAS-Identifier': nasId });
    expect([huge.code, first(huge, 'Reply-Message')]).toEqual(['Access-Reject', 'Code inconnu']);
  });
});

describe('red team: L3 on the wire', () => {
  it('L3: Acct-Input-Gigawords = 4294967295 is answered (never a 5xx the NAS resends forever) and counts nothing', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const c = await code(resellerId);
    const mac = '02:00:00:00:15:0A';
    const s = randomUUID();
    expect((await report('Start', c.code, nasId, s, mac)).code).toBe('Accounting-Response');
    const absurd = await report('Interim-Update', c.code, nasId, s, mac, 1000, {
      'Acct-Input-Gigawords': 4294967295,
    });
    expect(absurd.code).toBe('Accounting-Response');
    expect((await getAccessCode(c.code))?.used_bytes).toBe(0);
    // The session goes on being counted.
    expect((await report('Interim-Update', c.code, nasId, s, mac, 2000)).code).toBe('Accounting-Response');
    expect((await getAccessCode(c.code))?.used_bytes).toBe(2000);
  });
});

describe('red team: L4 (guessing codes)', () => {
  it('L4: the 21st wrong code from one device is refused; a right code from another device at the same NAS still works', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const c = await code(resellerId);
    const guesser = '02:00:00:00:16:0A';
    for (let i = 0; i < 20; i++) {
      const wrong = await login(newCode(), nasId, guesser);
      expect([wrong.code, first(wrong, 'Reply-Message')]).toEqual(['Access-Reject', 'Code inconnu']);
    }
    const refused = await login(newCode(), nasId, guesser);
    expect([refused.code, first(refused, 'Reply-Message')]).toEqual([
      'Access-Reject',
      "Trop d'essais de codes, réessayez plus tard",
    ]);
    // Even a right code, from the guessing device: an answer would tell a right guess.
    expect(first(await login(c.code, nasId, guesser), 'Reply-Message')).toBe(
      "Trop d'essais de codes, réessayez plus tard",
    );
    expect((await login(c.code, nasId, '02:00:00:00:16:0B')).code).toBe('Access-Accept');
  });

  it('L4: a guesser changing MAC at every try meets the NAS count (200): its wrong codes are refused, a right code still gets in', async () => {
    const resellerId = randomUUID();
    const nasId = await nas(resellerId);
    const other = await nas(resellerId);
    const c = await code(resellerId, {
      offer: { duration_hours: 24, data_limit_mb: 1, cir_kbps: 512, mir_kbps: 2048, max_devices: 2 },
    });
    // A few past the budget: a reply lost under load must not leave it one short.
    const packets = Array.from({ length: 205 }, (_, i) => {
      const guess = newCode();
      const mac = `02:00:00:01:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
      return {
        'User-Name': guess,
        'User-Password': guess,
        'NAS-Identifier': nasId,
        'Calling-Station-Id': mac,
        'Message-Authenticator': '0x00',
        'Packet-Src-IP-Address': routers.get(nasId)?.ip ?? '',
      };
    });
    const batch = await radclientBatch('auth', packets, {
      port: edge.radiusAuthPort,
      secret: routers.get(nasId)?.secret ?? '',
      parallel: 20,
    });
    expect(batch.counts['Access-Accept']).toBe(0);
    const next = await login(newCode(), nasId, '02:00:00:00:16:FD');
    expect([next.code, first(next, 'Reply-Message')]).toEqual([
      'Access-Reject',
      "Trop d'essais de codes, réessayez plus tard",
    ]);
    // A right code is read first: no flood switches the hotspot off (issue 31, H1).
    expect((await login(c.code, nasId, '02:00:00:00:16:FF')).code).toBe('Access-Accept');
    expect((await login(c.code, other, '02:00:00:00:16:FE')).code).toBe('Access-Accept');
  });

  it('L4: /access/check answers a right code on its merits until the address\'s 20th wrong code there, then "unconfirmed" like a wrong one; another reseller\'s code reads as a wrong one', async () => {
    const check = (nasId: string, c: string) =>
      call<{ valid: boolean; reason?: string }>(edge.apiUrl, 'POST', '/api/v1/access/check', {
        body: { nas_id: nasId, code: c },
      });
    // The budget counts per clock window: a run that crosses one proves nothing, and runs again.
    const run = async () => {
      const start = Math.floor(Date.now() / 600_000);
      const resellerId = randomUUID();
      const nasId = await nas(resellerId);
      const [mine, elsewhere] = [await code(resellerId), await code(randomUUID())];
      const answers = { foreign: await check(nasId, elsewhere.code), right: await check(nasId, mine.code) };
      for (let i = 0; i < 19; i++) expect((await check(nasId, newCode())).body.reason).toBe('unconfirmed');
      const after = await check(nasId, mine.code);
      return { ...answers, after, crossed: Math.floor(Date.now() / 600_000) !== start };
    };
    let out = await run();
    if (out.crossed) out = await run();
    expect([out.foreign.status, out.foreign.body]).toEqual([200, { valid: false, reason: 'unconfirmed' }]);
    expect(out.right.body).toMatchObject({ valid: true });
    expect([out.after.status, out.after.body]).toEqual([200, { valid: false, reason: 'unconfirmed' }]);
  });
});

describe('red team (issue 40): M1, a guesser changing MAC at every try', () => {
  const TOO_MANY = "Trop d'essais de codes, réessayez plus tard";
  /** The guess budgets' 10-minute window a moment falls in. */
  const windowOf = (ms: number) => Math.floor(ms / 600_000);
  const macOf = (n: number) =>
    `02:40:${[(n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`.toUpperCase();

  /** A hotspot with a stock card, a paid code, and a card its buyer's phone has used already. */
  async function hotspotWithCodes(attempt: number) {
    const admin = await tokenFor('admin');
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Chez M1' });
    const nasId = await nas(resellerId);
    const generated = await call<{ items: { code: string }[] }>(
      edge.apiUrl,
      'POST',
      '/api/v1/vouchers/generate',
      {
        token: admin,
        body: { n: 3, forfait_id: (SEED_FORFAITS[0] as { id: string }).id, reseller_id: resellerId },
      },
    );
    const [stock, used, spare] = generated.body.items.map((i) => i.code) as [string, string, string];
    const paid = await code(resellerId);
    const owner = macOf(0x100 + attempt);
    expect((await login(used, nasId, owner)).code).toBe('Access-Accept');
    // Its session ran and ended: the phone comes back later.
    const session = randomUUID();
    await report('Start', used, nasId, session, owner);
    await report('Stop', used, nasId, session, owner, 1000);
    return { resellerId, nasId, stock, used, spare, paid, owner };
  }

  /** 215 wrong codes at the hotspot, each from a MAC of its own, 20 in flight. */
  async function flood(nasId: string, attempt: number) {
    const packets = Array.from({ length: 215 }, (_, i) => {
      const guess = newCode();
      return {
        'User-Name': guess,
        'User-Password': guess,
        'NAS-Identifier': nasId,
        'Calling-Station-Id': macOf(0x10000 * (attempt + 1) + i),
        'Message-Authenticator': '0x00',
        'Packet-Src-IP-Address': routers.get(nasId)?.ip ?? '',
      };
    });
    return radclientBatch('auth', packets, {
      port: edge.radiusAuthPort,
      secret: routers.get(nasId)?.secret ?? '',
      parallel: 20,
    });
  }

  it("M1: after 215 wrong codes from as many MACs, a stock card from another MAC is refused as they are and stays unused; paid codes and a card on its buyer's phone still get in", async () => {
    // The NAS count is per clock window: a run that crosses one proves nothing, and runs again.
    const run = async (attempt: number) => {
      const start = Date.now();
      const h = await hotspotWithCodes(attempt);
      const batch = await flood(h.nasId, attempt);
      const answers = {
        wrong: await login(newCode(), h.nasId, macOf(0x20000 + attempt)),
        stock: await login(h.stock, h.nasId, macOf(0x20010 + attempt)),
        // A card used on one phone, typed on another: a guesser would find it this way too.
        usedElsewhere: await login(h.used, h.nasId, macOf(0x20020 + attempt)),
        paid: await login(h.paid.code, h.nasId, macOf(0x20030 + attempt)),
        owner: await login(h.used, h.nasId, h.owner),
      };
      return { h, batch, answers, sameWindow: windowOf(Date.now()) === windowOf(start) };
    };
    let out = await run(0);
    if (!out.sameWindow) out = await run(1);
    const { h, batch, answers } = out;

    expect(batch.counts['Access-Accept']).toBe(0);
    const said = (r: { code: string; attributes: Record<string, string[]> }) => [
      r.code,
      first(r, 'Reply-Message'),
    ];
    expect(said(answers.wrong)).toEqual(['Access-Reject', TOO_MANY]);
    // The stock card is answered as a wrong code is: nothing tells the guesser, nothing is used up.
    expect(said(answers.stock)).toEqual(said(answers.wrong));
    expect(said(answers.usedElsewhere)).toEqual(said(answers.wrong));
    const card = await getAccessCode(h.stock);
    expect([card?.started_at, card?.voucher_status]).toEqual([undefined, 'active']);
    const month = new Date().toISOString().slice(0, 7);
    expect((await getMonthlyRevenue(h.resellerId, month)).total_fcfa).toBe(
      (SEED_FORFAITS[0] as { price_fcfa: number }).price_fcfa,
    );
    // The hotspot's subscribers are not switched off: a paid code, and a card on the phone that used it.
    expect(answers.paid.code).toBe('Access-Accept');
    expect(said(answers.owner)).toEqual(['Access-Accept', undefined]);
  }, 180_000);

  it("M1: during a flood of 215 wrong codes from as many MACs, the buyer of a never-used card gets in through the portal's login pass (its number confirmed by SMS) with the forfait's limits; the guesser changing MAC gets neither a card nor an oracle", async () => {
    const forfait = SEED_FORFAITS[0] as { duration_hours: number; data_limit_mb: number };
    const pass = (token: string, nasId: string, code: string, mac: string) =>
      call(edge.apiUrl, 'POST', '/api/v1/access/pass', { token, body: { nas_id: nasId, code, mac } });
    const run = async (attempt: number) => {
      const start = Date.now();
      const h = await hotspotWithCodes(2 + attempt);
      const batch = await flood(h.nasId, 2 + attempt);
      // The portal, on the buyer's phone: the check says the flood; the buyer confirms a number
      // by SMS and asks the pass for the MAC the router's page gave.
      const buyer = macOf(0x30000 + attempt);
      const checked = await call(edge.apiUrl, 'POST', '/api/v1/access/check', {
        body: { nas_id: h.nasId, code: h.stock },
      });
      const given = await pass(await signIn(edge.apiUrl, newMsisdn()), h.nasId, h.stock, buyer);
      // The guesser: at the router, the card from its next MAC, which holds no pass...
      const before = await login(h.stock, h.nasId, macOf(0x30010 + attempt));
      const wrong = await login(newCode(), h.nasId, macOf(0x30020 + attempt));
      const accepted = await login(h.stock, h.nasId, buyer);
      const after = await login(h.stock, h.nasId, macOf(0x30030 + attempt));
      // ...and with an account of its own: 10 wrong codes, then a right card answered as a wrong one.
      const account = await signIn(edge.apiUrl, newMsisdn());
      const guesserMac = macOf(0x30040 + attempt);
      const guesses = [];
      for (let i = 0; i < 10; i++) guesses.push((await pass(account, h.nasId, newCode(), guesserMac)).status);
      const right = await pass(account, h.nasId, h.spare, guesserMac);
      const again = await pass(account, h.nasId, newCode(), guesserMac);
      const spare = await login(h.spare, h.nasId, guesserMac);
      return {
        h,
        batch,
        checked,
        given,
        logins: { before, wrong, accepted, after, spare },
        guesses,
        right,
        again,
        buyer,
        sameWindow: windowOf(Date.now()) === windowOf(start),
      };
    };
    let out = await run(0);
    if (!out.sameWindow) out = await run(1);
    const { h, batch, checked, given, logins, guesses, right, again, buyer } = out;
    const said = (r: { code: string; attributes: Record<string, string[]> }) => [
      r.code,
      first(r, 'Reply-Message'),
    ];

    expect(batch.counts['Access-Accept']).toBe(0);
    expect(checked.body).toEqual({ valid: false, reason: 'unconfirmed', flood: true });
    expect(given).toMatchObject({ status: 200, body: { valid: true, first_use: true } });
    // The buyer's phone is accepted, with the forfait's time, speed and data.
    expect(logins.accepted.code).toBe('Access-Accept');
    expect(first(logins.accepted, 'Session-Timeout')).toBe(String(forfait.duration_hours * 3600));
    expect(first(logins.accepted, 'Mikrotik-Rate-Limit')).toBe('2048k/2048k 0/0 0/0 0/0 8 512k/512k');
    expect(totalLimit(logins.accepted)).toBe(forfait.data_limit_mb * 1048576);
    // Used up by its buyer's phone alone: its first use booked, the phone its one device.
    const card = await getAccessCode(h.stock);
    expect([card?.voucher_status, Object.keys(card?.devices ?? {})]).toEqual([
      'redeemed',
      [`${h.nasId}/${buyer}`],
    ]);
    // The guesser's MACs, before and after the buyer's login: the card is answered as a wrong code.
    expect(said(logins.wrong)).toEqual(['Access-Reject', TOO_MANY]);
    expect(said(logins.before)).toEqual(said(logins.wrong));
    expect(said(logins.after)).toEqual(said(logins.wrong));
    // Its account: 10 wrong codes, then the same 429 for a right card as for a wrong one, no pass,
    // and the card refused at the router and left unused.
    expect(guesses).toEqual(Array(10).fill(404));
    expect(right).toMatchObject({ status: 429, body: { error: { code: 'ERR_RATE_LIMITED' } } });
    expect([right.status, right.body]).toEqual([again.status, again.body]);
    expect(said(logins.spare)).toEqual(said(logins.wrong));
    expect((await getAccessCode(h.spare))?.voucher_status).toBe('active');
  }, 240_000);
});
