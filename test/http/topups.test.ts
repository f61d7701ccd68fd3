import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { give } from '../../functions/agents/handovers.js';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { settle } from '../../functions/billing/payments/settlement.js';
import { clock } from '../../functions/core/clock.js';
import { Access, type AccessCode, bytesOfMb, getAccessCode } from '../../functions/store/access-codes.js';
import { NEW_AGENT_BOOKS } from '../../functions/store/agents.js';
import { getPayment } from '../../functions/store/payments.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { acceptedAgent } from '../support/agents.js';

const TEST_ADMIN = { role: 'admin', sub: 'topups', ref: 'SUB-1', exp: 0 } as const;

import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

/** A reseller or an agent tops up a live code, through the real local server: limits grow, a cash sale is booked. */
const server = useLocalServer();
const api = (method: string, path: string, token?: string, body?: unknown) =>
  call(server.url(), method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
const errorOf = (r: { body: unknown }) => (r.body as { error?: { code: string } }).error?.code;

const [hour, , day] = SEED_FORFAITS as [
  (typeof SEED_FORFAITS)[number],
  (typeof SEED_FORFAITS)[number],
  (typeof SEED_FORFAITS)[number],
];

async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId, 'access_topup');
  return { resellerId, nasId, token: await tokenFor('reseller', { resellerId }) };
}

/** A code of the reseller, logged in at its hotspot, its time and data as given. */
async function givenCode(r: { resellerId: string; nasId: string }, over: Partial<AccessCode> = {}) {
  const code = randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase();
  const now = Date.now();
  await Access.put({
    code,
    reseller_id: r.resellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: hour.id,
    forfait_name: hour.name,
    offer: { duration_hours: 1, data_limit_mb: 300, cir_kbps: 512, mir_kbps: 2048, max_devices: 1 },
    created_at: new Date(now - 7200_000).toISOString(),
    started_at: new Date(now - 7200_000).toISOString(),
    expires_at: new Date(now - 3600_000).toISOString(),
    last_nas_id: r.nasId,
    used_bytes: bytesOfMb(300),
    devices: {},
    devices_version: 3,
    ...over,
  });
  return code;
}

const today = () => new Date().toISOString().slice(0, 10);
/** The first day of this file's run: a run across midnight (UTC) books on two days. */
const firstDay = today();
type Day = {
  total_fcfa: number;
  sales_count: number;
  by_channel: Record<string, number>;
  by_hotspot: Record<string, number>;
  by_forfait: Record<string, number>;
};
/** The reseller's books since this file started, its days summed. */
async function books(r: { resellerId: string; token: string }): Promise<Day> {
  const got = await api('GET', `/api/v1/billing/sales?from=${firstDay}&to=${today()}`, r.token);
  expect(got.status).toBe(200);
  const add = (a: Record<string, number>, b: Record<string, number> = {}) => {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return (got.body as { days: Day[] }).days.reduce<Day>(
    (sum, d) => ({
      total_fcfa: sum.total_fcfa + d.total_fcfa,
      sales_count: sum.sales_count + d.sales_count,
      by_channel: add(sum.by_channel, d.by_channel),
      by_hotspot: add(sum.by_hotspot, d.by_hotspot),
      by_forfait: add(sum.by_forfait, d.by_forfait),
    }),
    { total_fcfa: 0, sales_count: 0, by_channel: {}, by_hotspot: {}, by_forfait: {} },
  );
}

describe('top-ups by a reseller', () => {
  it("bring a used-up code back: its time runs again from now, its data cap grows, the sale is booked as cash at the code's hotspot", async () => {
    const r = await givenReseller();
    const code = await givenCode(r);
    const before = Date.now();
    const got = await api('POST', `/api/v1/access/${code.toLowerCase()}/topups`, r.token, {
      forfait_id: day.id,
    });
    const after = Date.now();
    expect(got.status, JSON.stringify(got.body)).toBe(201);
    expect(got.body).toMatchObject({
      code,
      forfait_id: day.id,
      forfait_name: day.name,
      price_fcfa: day.price_fcfa,
      data_limit_mb: 300 + day.data_limit_mb,
      topups: 1,
    });
    const end = Date.parse((got.body as { expires_at: string }).expires_at);
    expect(end).toBeGreaterThanOrEqual(before + day.duration_hours * 3600_000);
    expect(end).toBeLessThanOrEqual(after + day.duration_hours * 3600_000);
    const stored = await getAccessCode(code);
    expect(stored).toMatchObject({ expires_at: new Date(end).toISOString(), topups: 1, devices_version: 4 });
    expect(stored?.offer).toMatchObject({
      data_limit_mb: 300 + day.data_limit_mb,
      cir_kbps: 512,
      max_devices: 1,
    });
    const b = await books(r);
    expect(b).toMatchObject({ total_fcfa: day.price_fcfa, sales_count: 1 });
    expect(b.by_channel).toEqual({ counter: day.price_fcfa });
    expect(b.by_hotspot).toEqual({ [r.nasId]: day.price_fcfa });
    expect(b.by_forfait).toEqual({ [day.id]: day.price_fcfa });
  });

  it("add to a live code's end, and to a code never used its duration from the first login", async () => {
    const r = await givenReseller();
    const end = new Date(Date.now() + 1800_000).toISOString();
    const live = await givenCode(r, { expires_at: end, used_bytes: 0 });
    const got = await api('POST', `/api/v1/access/${live}/topups`, r.token, { forfait_id: hour.id });
    expect(got.body).toMatchObject({ expires_at: new Date(Date.parse(end) + 3600_000).toISOString() });
    const unused = await givenCode(r, {
      started_at: undefined,
      expires_at: undefined,
      last_nas_id: undefined,
      used_bytes: 0,
    });
    const fresh = await api('POST', `/api/v1/access/${unused}/topups`, r.token, { forfait_id: day.id });
    expect(fresh.status).toBe(201);
    expect(fresh.body).toMatchObject({ duration_hours: 1 + day.duration_hours });
    expect(fresh.body).not.toHaveProperty('expires_at');
    // Booked without a hotspot: the code never logged in anywhere.
    expect((await books(r)).by_hotspot).toEqual({ [r.nasId]: hour.price_fcfa, '-': day.price_fcfa });
  });

  it('all count when made at once: 12 parallel top-ups of one code add 12 hours and 12 sales', async () => {
    const r = await givenReseller();
    const end = Date.now() + 600_000;
    const code = await givenCode(r, { expires_at: new Date(end).toISOString(), used_bytes: 0 });
    const all = await Promise.all(
      Array.from({ length: 12 }, () =>
        api('POST', `/api/v1/access/${code}/topups`, r.token, { forfait_id: hour.id }),
      ),
    );
    expect(all.map((a) => a.status)).toEqual(Array(12).fill(201));
    const stored = await getAccessCode(code);
    expect(stored?.expires_at).toBe(new Date(end + 12 * 3600_000).toISOString());
    expect(stored?.offer.data_limit_mb).toBe(300 + 12 * hour.data_limit_mb);
    expect(stored?.topups).toBe(12);
    expect(new Set(all.map((a) => (a.body as { topups: number }).topups)).size).toBe(12);
    expect(await books(r)).toMatchObject({ total_fcfa: 12 * hour.price_fcfa, sales_count: 12 });
  });

  it('are refused, writing nothing, for a code not live, of another reseller, unknown, or a bad body', async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const revoked = await givenCode(r, { revoked_at: new Date().toISOString() });
    const voucher = await givenCode(r, {
      source: 'voucher',
      voucher_status: 'active',
      started_at: undefined,
      expires_at: undefined,
    });
    const stale = await givenCode(r, {
      started_at: undefined,
      expires_at: undefined,
      use_by: new Date(Date.now() - 1000).toISOString(),
    });
    const mine = await givenCode(r);
    const body = { forfait_id: hour.id };
    for (const c of [revoked, voucher, stale]) {
      const got = await api('POST', `/api/v1/access/${c}/topups`, r.token, body);
      expect(got.status).toBe(409);
      expect(errorOf(got)).toBe('ERR_CODE_NOT_LIVE');
    }
    expect((await api('POST', `/api/v1/access/${mine}/topups`, other.token, body)).status).toBe(404);
    expect((await api('POST', '/api/v1/access/NOSUCHCODE/topups', r.token, body)).status).toBe(404);
    expect(
      (await api('POST', `/api/v1/access/${mine}/topups`, r.token, { forfait_id: randomUUID() })).status,
    ).toBe(404);
    for (const bad of [{}, { forfait_id: 'x' }, { forfait_id: hour.id, hours: 3 }]) {
      const got = await api('POST', `/api/v1/access/${mine}/topups`, r.token, bad);
      expect(got.status).toBe(400);
      expect(errorOf(got)).toBe('ERR_VALIDATION');
    }
    expect(await getAccessCode(mine)).toMatchObject({ devices_version: 3 });
    expect((await getAccessCode(mine))?.topups).toBeUndefined();
    expect((await books(r)).total_fcfa).toBe(0);
    expect((await books(other)).total_fcfa).toBe(0);
  });
});

/** An accepted agent of the reseller, with a float and a commission of 10 %. */
async function givenAgent(r: { resellerId: string; nasId: string }, floatFcfa: number) {
  const id = randomUUID();
  const nowIso = new Date().toISOString();
  await acceptedAgent({
    id,
    reseller_id: r.resellerId,
    msisdn: newMsisdn(),
    commission_bp: 1000,
    ...NEW_AGENT_BOOKS,
    stock: {},
    created_at: nowIso,
  });
  if (floatFcfa > 0) await give(TEST_ADMIN, id, { float_fcfa: floatFcfa });
  return { id, token: await tokenFor('agent', { resellerId: r.resellerId, agentId: id }) };
}

describe('top-ups by an agent', () => {
  it("are paid from its float with its commission, marked as top-ups in its sales, booked under it at the code's hotspot", async () => {
    const r = await givenReseller();
    const agent = await givenAgent(r, 1000);
    const code = await givenCode(r);
    const got = await api('POST', `/api/v1/agents/${agent.id}/topups`, agent.token, {
      code: code.toLowerCase(),
      forfait_id: day.id,
    });
    expect(got.status, JSON.stringify(got.body)).toBe(201);
    expect(got.body).toMatchObject({
      sale: {
        code,
        forfait_id: day.id,
        price_fcfa: 300,
        commission_fcfa: 30,
        paid_from: 'float',
        nas_id: r.nasId,
        topup: true,
      },
      topup: { code, data_limit_mb: 300 + day.data_limit_mb, topups: 1 },
      float_fcfa: 700,
    });
    const statement = await api('GET', `/api/v1/agents/${agent.id}`, agent.token);
    expect(statement.body).toMatchObject({
      agent: { sold_fcfa: 300, commission_fcfa: 30, owed_fcfa: 270 },
      today: { sales_count: 1 },
    });
    const sales = await api(
      'GET',
      `/api/v1/agents/${agent.id}/sales?from=${firstDay}&to=${today()}`,
      agent.token,
    );
    expect((sales.body as { items: unknown[] }).items).toMatchObject([{ code, topup: true }]);
    const b = await books(r);
    expect(b).toMatchObject({ total_fcfa: 300, by_channel: { cash: 300 }, by_hotspot: { [r.nasId]: 300 } });
    const summary = await api(
      'GET',
      `/api/v1/billing/summary?reseller_id=${r.resellerId}&month=${today().slice(0, 7)}`,
      r.token,
    );
    expect(summary.body).toMatchObject({ agents: { sold_fcfa: 300, commission_fcfa: 30 } });
  });

  it('at once, count exactly what the float covers: 8 top-ups against a float of 5 give 5 hours and 3 refusals', async () => {
    const r = await givenReseller();
    const agent = await givenAgent(r, 5 * hour.price_fcfa);
    const end = Date.now() + 600_000;
    const code = await givenCode(r, { expires_at: new Date(end).toISOString(), used_bytes: 0 });
    const all = await Promise.all(
      Array.from({ length: 8 }, () =>
        api('POST', `/api/v1/agents/${agent.id}/topups`, agent.token, { code, forfait_id: hour.id }),
      ),
    );
    expect(all.filter((a) => a.status === 201)).toHaveLength(5);
    expect(all.filter((a) => errorOf(a) === 'ERR_AGENT_FLOAT_EXHAUSTED')).toHaveLength(3);
    expect((await getAccessCode(code))?.expires_at).toBe(new Date(end + 5 * 3600_000).toISOString());
    expect(await books(r)).toMatchObject({ total_fcfa: 5 * hour.price_fcfa, sales_count: 5 });
    const statement = await api('GET', `/api/v1/agents/${agent.id}`, agent.token);
    expect(statement.body).toMatchObject({ agent: { float_fcfa: 0, sales_count: 5 } });
  });

  it('of one code within one millisecond are two sales, each booked (a top-up is not the code sold again)', async () => {
    const r = await givenReseller();
    const agent = await givenAgent(r, 5 * hour.price_fcfa);
    const end = Date.now() + 600_000;
    const code = await givenCode(r, { expires_at: new Date(end).toISOString(), used_bytes: 0 });
    const instant = Date.now();
    clock.set(() => instant);
    try {
      for (let n = 0; n < 2; n++) {
        const res = await api('POST', `/api/v1/agents/${agent.id}/topups`, agent.token, {
          code,
          forfait_id: hour.id,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
    } finally {
      clock.reset();
    }
    expect((await getAccessCode(code))?.topups).toBe(2);
    const statement = await api('GET', `/api/v1/agents/${agent.id}`, agent.token);
    expect(statement.body).toMatchObject({ agent: { sales_count: 2 } });
  });

  it("refuse another reseller's code (404), a revoked one (409), and its reseller acting for it (403), writing nothing", async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const agent = await givenAgent(r, 1000);
    const theirs = await givenCode(other);
    const revoked = await givenCode(r, { revoked_at: new Date().toISOString() });
    const mine = await givenCode(r);
    const topUp = (token: string, c: string) =>
      api('POST', `/api/v1/agents/${agent.id}/topups`, token, { code: c, forfait_id: hour.id });
    expect((await topUp(agent.token, theirs)).status).toBe(404);
    expect(errorOf(await topUp(agent.token, revoked))).toBe('ERR_CODE_NOT_LIVE');
    expect((await topUp(r.token, mine)).status).toBe(403);
    expect((await getAccessCode(mine))?.topups).toBeUndefined();
    expect((await books(r)).total_fcfa).toBe(0);
    expect((await books(other)).total_fcfa).toBe(0);
  });
});

describe('a top-up bought by the subscriber with mobile money', () => {
  it("grows the code in use at completion (no new code), booked as a mobile-money sale, taken back by a refund; another reseller's or a revoked code is refused at initiation", async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const code = await givenCode(r);
    const subscriber = await login(server.url(), newMsisdn());
    const pay = (body: Record<string, unknown>) =>
      api('POST', '/api/v1/payments/initiate', subscriber, { provider: 'wave', ...body });
    expect((await pay({ forfait_id: hour.id, nas_id: other.nasId, topup_code: code })).status).toBe(404);
    const revoked = await givenCode(r, { revoked_at: new Date().toISOString() });
    expect(errorOf(await pay({ forfait_id: hour.id, nas_id: r.nasId, topup_code: revoked }))).toBe(
      'ERR_CODE_NOT_LIVE',
    );

    const initiated = await pay({
      forfait_id: day.id,
      nas_id: r.nasId,
      topup_code: code.toLowerCase(),
      code_delivery: 'screen',
    });
    expect(initiated.status, JSON.stringify(initiated.body)).toBe(201);
    const { payment_url, transaction_id } = initiated.body as { payment_url: string; transaction_id: string };
    const html = await (await fetch(payment_url)).text();
    const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
    const before = Date.now();
    expect((await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' })).status).toBe(
      303,
    );
    const status = await api('GET', `/api/v1/payments/${transaction_id}/status`, subscriber);
    expect(status.body).toMatchObject({ status: 'completed', access_code: code });
    const stored = await getAccessCode(code);
    expect(stored?.topups).toBe(1);
    expect(stored?.offer.data_limit_mb).toBe(300 + day.data_limit_mb);
    expect(Date.parse(stored?.expires_at ?? '')).toBeGreaterThanOrEqual(
      before + day.duration_hours * 3600_000 - 1000,
    );
    const b = await books(r);
    expect(b).toMatchObject({
      total_fcfa: day.price_fcfa,
      sales_count: 1,
      by_channel: { mobile_money: day.price_fcfa },
    });

    // The gateway refunds it: what the top-up added is taken back, the code and its first hour stay.
    const payment = await getPayment(transaction_id);
    expect(
      await settle(
        payment as NonNullable<typeof payment>,
        { status: 'refunded', amount_fcfa: day.price_fcfa },
        { source: 'gateway' },
      ),
    ).toBe('refunded');
    const back = await getAccessCode(code);
    expect(back?.revoked_at).toBeUndefined();
    expect(back?.offer.data_limit_mb).toBe(300);
    expect(back?.topups).toBe(0);
    expect(Date.parse(back?.expires_at ?? '')).toBe(
      Date.parse(stored?.expires_at ?? '') - day.duration_hours * 3600_000,
    );
    expect(await books(r)).toMatchObject({ total_fcfa: 0, sales_count: 0 });
  });
});
