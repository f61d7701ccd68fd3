import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

/** A reseller's own forfaits, through the real local server: made, sold where they may be, booked at their price. */
const server = useLocalServer();
const api = (method: string, path: string, token?: string, body?: unknown) =>
  call(server.url(), method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });

type Own = {
  id: string;
  name: string;
  price_fcfa: number;
  position: number;
  hidden: boolean;
  nas_ids: string[];
};
type Listed = { items: { id: string; name: string; price_fcfa: number }[]; total: number };
const code = (r: { body: unknown }) => (r.body as { error?: { code: string } }).error?.code;

async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId, 'access_own');
  return { resellerId, nasId, token: await tokenFor('reseller', { resellerId }) };
}

const offer = (over: Record<string, unknown> = {}) => ({
  name: 'Pass Maquis 2 h',
  price_fcfa: 150,
  duration_hours: 2,
  data_limit_mb: 500,
  cir_kbps: 512,
  mir_kbps: 2048,
  ...over,
});

async function make(token: string, over: Record<string, unknown> = {}): Promise<Own> {
  const made = await api('POST', '/api/v1/resellers/me/forfaits', token, offer(over));
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as unknown as Own;
}

const portalList = async (nasId?: string) =>
  (await api('GET', `/api/v1/forfaits?page_size=100${nasId ? `&nas_id=${nasId}` : ''}`))
    .body as unknown as Listed;

describe("a reseller's own forfaits", () => {
  it('are checked whole after every update: cir_kbps alone above the stored mir_kbps, or mir_kbps alone below the stored cir_kbps, is 400 ERR_VALIDATION and changes nothing', async () => {
    const r = await givenReseller();
    const f = await make(r.token, { cir_kbps: 512, mir_kbps: 2048 });
    const put = (body: Record<string, unknown>) =>
      api('PUT', `/api/v1/resellers/me/forfaits/${f.id}`, r.token, body);

    for (const body of [{ cir_kbps: 4096 }, { mir_kbps: 256 }]) {
      const refused = await put(body);
      expect([refused.status, code(refused)], JSON.stringify(body)).toEqual([400, 'ERR_VALIDATION']);
    }
    const listed = await api('GET', '/api/v1/resellers/me/forfaits', r.token);
    expect(
      (listed.body as { items: Record<string, unknown>[] }).items.find((i) => i.id === f.id),
    ).toMatchObject({
      cir_kbps: 512,
      mir_kbps: 2048,
    });
    // Within the stored maximum, one rate alone is taken.
    expect(await put({ cir_kbps: 2048 })).toMatchObject({
      status: 200,
      body: { cir_kbps: 2048, mir_kbps: 2048 },
    });
  });

  it('are made, changed, ordered and hidden by their reseller, listed in its order', async () => {
    const r = await givenReseller();
    const a = await make(r.token, { name: 'Pass A' });
    const b = await make(r.token, { name: 'Pass B', max_devices: 2, time_counts: 'connected' });
    expect(a).toMatchObject({
      name: 'Pass A',
      price_fcfa: 150,
      max_devices: 1,
      time_counts: 'first_login',
      hidden: false,
    });
    expect(b).toMatchObject({ max_devices: 2, time_counts: 'connected' });
    expect(b.position).toBeGreaterThan(a.position);

    // Move B before A, change A's price, hide B.
    expect((await api('PUT', `/api/v1/resellers/me/forfaits/${b.id}`, r.token, { position: 0 })).status).toBe(
      200,
    );
    const repriced = await api('PUT', `/api/v1/resellers/me/forfaits/${a.id}`, r.token, { price_fcfa: 175 });
    expect(repriced).toMatchObject({ status: 200, body: { price_fcfa: 175 } });
    const listed = await api('GET', '/api/v1/resellers/me/forfaits', r.token);
    expect(listed.status).toBe(200);
    const body = listed.body as unknown as { items: Own[]; bounds: Record<string, number> };
    expect(body.items.map((f) => f.name)).toEqual(['Pass B', 'Pass A']);
    expect(body.bounds).toMatchObject({ min_price_fcfa: 50, max_price_fcfa: 100_000 });

    expect((await portalList(r.nasId)).items.slice(0, 2).map((f) => f.name)).toEqual(['Pass B', 'Pass A']);
    await api('PUT', `/api/v1/resellers/me/forfaits/${b.id}`, r.token, { hidden: true });
    const afterHide = await portalList(r.nasId);
    expect(afterHide.items.map((f) => f.name)).not.toContain('Pass B');
    expect(afterHide.items[0]).toMatchObject({ name: 'Pass A', price_fcfa: 175 });
    // Hidden is kept for its reseller, who may show it again.
    const again = await api('GET', '/api/v1/resellers/me/forfaits', r.token);
    expect((again.body as unknown as { items: Own[] }).items.find((f) => f.id === b.id)?.hidden).toBe(true);
  });

  it("leave the public list's contract alone; nas_id adds only that hotspot's reseller's own", async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const mine = await make(r.token, { name: 'Pass Quartier' });
    const plain = await portalList();
    expect(plain.total).toBe(SEED_FORFAITS.length);
    expect(plain.items.map((f) => f.id)).not.toContain(mine.id);
    const here = await portalList(r.nasId);
    expect(here.total).toBe(SEED_FORFAITS.length + 1);
    expect(here.items[0]).toEqual({
      id: mine.id,
      name: 'Pass Quartier',
      price_fcfa: 150,
      duration_hours: 2,
      data_limit_mb: 500,
      cir_kbps: 512,
      mir_kbps: 2048,
    });
    expect((await portalList(other.nasId)).items.map((f) => f.id)).not.toContain(mine.id);
    expect((await portalList('access_nobody_here')).total).toBe(SEED_FORFAITS.length);

    // One hotspot only: offered there, not at the reseller's other hotspot.
    const second = await hotspotOf(r.resellerId, 'access_own2');
    const scoped = await make(r.token, { name: 'Pass Gare', nas_ids: [second] });
    expect((await portalList(second)).items.map((f) => f.id)).toContain(scoped.id);
    expect((await portalList(r.nasId)).items.map((f) => f.id)).not.toContain(scoped.id);
  });

  it('are changed by their reseller only; bad input is a 4xx with a stable code', async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const mine = await make(r.token);
    const platform = SEED_FORFAITS[0]?.id as string;
    // Another reseller's, or the platform's: not found (ids do not leak).
    expect(
      code(await api('PUT', `/api/v1/resellers/me/forfaits/${mine.id}`, other.token, { price_fcfa: 100 })),
    ).toBe('ERR_NOT_FOUND');
    expect(
      code(await api('PUT', `/api/v1/resellers/me/forfaits/${platform}`, r.token, { price_fcfa: 100 })),
    ).toBe('ERR_NOT_FOUND');
    expect((await api('GET', '/api/v1/resellers/me/forfaits', other.token)).body).toMatchObject({
      items: [],
    });
    // A reseller naming another is refused; a subscriber or no token too.
    expect(
      (await api('GET', `/api/v1/resellers/me/forfaits?reseller_id=${other.resellerId}`, r.token)).status,
    ).toBe(403);
    expect(
      (await api('POST', '/api/v1/resellers/me/forfaits', await tokenFor('subscriber'), offer())).status,
    ).toBe(403);
    expect((await api('POST', '/api/v1/resellers/me/forfaits', undefined, offer())).status).toBe(401);
    // The operator's bounds.
    const cheap = await api('POST', '/api/v1/resellers/me/forfaits', r.token, offer({ price_fcfa: 10 }));
    expect(cheap).toMatchObject({ status: 400, body: { error: { code: 'ERR_FORFAIT_OUT_OF_BOUNDS' } } });
    expect(
      code(await api('POST', '/api/v1/resellers/me/forfaits', r.token, offer({ duration_hours: 5000 }))),
    ).toBe('ERR_FORFAIT_OUT_OF_BOUNDS');
    expect(
      code(await api('PUT', `/api/v1/resellers/me/forfaits/${mine.id}`, r.token, { price_fcfa: 200_000 })),
    ).toBe('ERR_FORFAIT_OUT_OF_BOUNDS');
    // Strict bodies.
    for (const bad of [
      offer({ name: '<b>x</b>' }),
      offer({ cir_kbps: 4096, mir_kbps: 1024 }),
      offer({ time_counts: 'sometimes' }),
      offer({ extra: 1 }),
      { name: 'x' },
    ]) {
      const res = await api('POST', '/api/v1/resellers/me/forfaits', r.token, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(code(res)).toBe('ERR_VALIDATION');
    }
    expect(code(await api('PUT', `/api/v1/resellers/me/forfaits/${mine.id}`, r.token, {}))).toBe(
      'ERR_VALIDATION',
    );
    expect(
      code(await api('PUT', '/api/v1/resellers/me/forfaits/not-a-uuid', r.token, { hidden: true })),
    ).toBe('ERR_VALIDATION');
    // A hotspot of another reseller cannot be named.
    expect(
      code(await api('POST', '/api/v1/resellers/me/forfaits', r.token, offer({ nas_ids: [other.nasId] }))),
    ).toBe('ERR_NOT_FOUND');
  });
});

describe("selling a reseller's own forfait", () => {
  it('a payment at its hotspot is booked by the ledger at its price; elsewhere it is not found', async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const mine = await make(r.token, { price_fcfa: 425 });
    const subscriber = await login(server.url(), newMsisdn());
    const pay = (nasId?: string) =>
      api('POST', '/api/v1/payments/initiate', subscriber, {
        forfait_id: mine.id,
        provider: 'orange_money',
        ...(nasId ? { nas_id: nasId } : {}),
      });
    expect(code(await pay(other.nasId))).toBe('ERR_NOT_FOUND');
    expect(code(await pay())).toBe('ERR_NOT_FOUND');

    const initiated = await pay(r.nasId);
    expect(initiated.status, JSON.stringify(initiated.body)).toBe(201);
    const { payment_url, transaction_id } = initiated.body as { payment_url: string; transaction_id: string };
    const html = await (await fetch(payment_url)).text();
    const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
    expect((await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' })).status).toBe(
      303,
    );
    const status = await api('GET', `/api/v1/payments/${transaction_id}/status`, subscriber);
    expect(status.body).toMatchObject({ status: 'completed', amount_fcfa: 425 });

    const month = new Date().toISOString().slice(0, 7);
    const summary = await api(
      'GET',
      `/api/v1/billing/summary?reseller_id=${r.resellerId}&month=${month}`,
      r.token,
    );
    expect(summary.body).toMatchObject({ total_fcfa: 425 });

    // Hidden: no new sale, even at its own hotspot.
    await api('PUT', `/api/v1/resellers/me/forfaits/${mine.id}`, r.token, { hidden: true });
    expect(code(await pay(r.nasId))).toBe('ERR_NOT_FOUND');
  });

  it("vouchers and agents' sales take it only for its reseller (and its hotspots), at its price", async () => {
    const r = await givenReseller();
    const other = await givenReseller();
    const mine = await make(r.token, { price_fcfa: 250 });
    const batch = (token: string, resellerId: string, forfaitId: string) =>
      api('POST', '/api/v1/vouchers/batches', token, {
        n: 2,
        forfait_id: forfaitId,
        reseller_id: resellerId,
      });
    const made = await batch(r.token, r.resellerId, mine.id);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((made.body as { items: { forfait_id: string }[] }).items[0]).toMatchObject({
      forfait_id: mine.id,
    });
    expect(code(await batch(other.token, other.resellerId, mine.id))).toBe('ERR_NOT_FOUND');
    // Limited to some hotspots: no vouchers (a voucher carries no hotspot).
    const scoped = await make(r.token, { name: 'Pass Gare', price_fcfa: 250, nas_ids: [r.nasId] });
    expect(code(await batch(r.token, r.resellerId, scoped.id))).toBe('ERR_NOT_FOUND');

    // An agent of the reseller sells it (at its hotspot) at its price; another reseller's agent cannot.
    const agentOf = async (reseller: { token: string }) => {
      const msisdn = newMsisdn();
      const created = await api('POST', '/api/v1/agents', reseller.token, {
        msisdn,
        name: 'Boutique',
        commission_bp: 0,
      });
      const id = (created.body as { id: string }).id;
      const accepted = await api('POST', `/api/v1/agents/${id}/accept`, await login(server.url(), msisdn));
      await api('POST', `/api/v1/agents/${id}/allot`, reseller.token, { float_fcfa: 5000 });
      return { id, token: (accepted.body as { session_token: string }).session_token };
    };
    const agent = await agentOf(r);
    const sold = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: scoped.id,
      nas_id: r.nasId,
    });
    expect(sold.status, JSON.stringify(sold.body)).toBe(201);
    expect(sold.body).toMatchObject({ sale: { price_fcfa: 250, forfait_id: scoped.id } });
    const stranger = await agentOf(other);
    expect(
      code(await api('POST', `/api/v1/agents/${stranger.id}/sales`, stranger.token, { forfait_id: mine.id })),
    ).toBe('ERR_NOT_FOUND');
  });
});
