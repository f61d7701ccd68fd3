import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, loginAs, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const api = (method: string, path: string, options?: Parameters<typeof call>[3]) =>
  call(server.url(), method, path, options);

type ErrorBody = { error: { code: string } };
const forfait = SEED_FORFAITS[3] as (typeof SEED_FORFAITS)[number];
const month = () => new Date().toISOString().slice(0, 7);

describe('the sandbox payment flow end to end', () => {
  it('pays through the sandbox page, completes the payment and counts it in the reseller summary', async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    const nasId = await hotspotOf(reseller.resellerId, 'access_http');
    const subscriber = await login(server.url(), newMsisdn());

    const initiated = await api('POST', '/api/v1/payments/initiate', {
      token: subscriber,
      body: { forfait_id: forfait.id, provider: 'mtn_momo', nas_id: nasId },
    });
    expect(initiated.status).toBe(201);
    const { payment_url, transaction_id } = initiated.body as { payment_url: string; transaction_id: string };
    expect(payment_url).toBe(`${server.url()}/sandbox/pay/${transaction_id}`);

    const page = await fetch(payment_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain(`${forfait.price_fcfa} FCFA`);
    expect(html).toContain('mtn_momo');
    const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
    expect(action).toBeDefined();

    const pending = await api('GET', `/api/v1/payments/${transaction_id}/status`, { token: subscriber });
    expect(pending.body).toEqual({
      status: 'pending',
      amount_fcfa: forfait.price_fcfa,
      currency: 'XOF',
      provider: 'mtn_momo',
    });

    // The aggregator's page sends the buyer back to the hotspot's portal, which shows the code.
    const paid = await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`/portal/${nasId}?payment=${transaction_id}`);

    const status = await api('GET', `/api/v1/payments/${transaction_id}/status`, { token: subscriber });
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      status: 'completed',
      amount_fcfa: forfait.price_fcfa,
      currency: 'XOF',
      provider: 'mtn_momo',
      access_code: expect.stringMatching(/^[A-Z2-9]{10}$/),
    });

    const summary = await api(
      'GET',
      `/api/v1/billing/summary?reseller_id=${reseller.resellerId}&month=${month()}`,
      {
        token: reseller.token,
      },
    );
    expect(summary.status).toBe(200);
    const body = summary.body as {
      total_fcfa: number;
      sessions_count: number;
      split: { reseller_fcfa: number; operator_fcfa: number; provider_fee_fcfa: number };
    };
    expect(body.total_fcfa).toBe(forfait.price_fcfa);
    // Sessions are counted by RADIUS accounting, not by a sale.
    expect(body.sessions_count).toBe(0);
    expect(body.split.reseller_fcfa + body.split.operator_fcfa + body.split.provider_fee_fcfa).toBe(
      forfait.price_fcfa,
    );

    // Another subscriber does not learn the payment exists; the admin may read it.
    const stranger = await tokenFor('subscriber');
    expect((await api('GET', `/api/v1/payments/${transaction_id}/status`, { token: stranger })).status).toBe(
      404,
    );
    expect(
      (await api('GET', `/api/v1/payments/${transaction_id}/status`, { token: await tokenFor('admin') }))
        .status,
    ).toBe(200);

    // Another reseller and a subscriber may not read this reseller's summary.
    const q = `/api/v1/billing/summary?reseller_id=${reseller.resellerId}&month=${month()}`;
    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    expect((await api('GET', q, { token: other })).status).toBe(403);
    expect((await api('GET', q, { token: subscriber })).status).toBe(403);
  });

  it('answers the same payment to a repeated Idempotency-Key, and 409 to the key reused for another request', async () => {
    const token = await tokenFor('subscriber');
    const headers = { 'idempotency-key': `k-${randomUUID()}` };
    const body = { forfait_id: forfait.id, provider: 'wave' };
    const [a, b] = await Promise.all([
      api('POST', '/api/v1/payments/initiate', { token, body, headers }),
      api('POST', '/api/v1/payments/initiate', { token, body, headers }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body).toEqual(b.body);
    const changed = await api('POST', '/api/v1/payments/initiate', {
      token,
      body: { ...body, provider: 'orange_money' },
      headers,
    });
    expect(changed.status).toBe(409);
    // Its own code: a client can tell "you reused a key" from a state conflict.
    expect((changed.body as ErrorBody).error.code).toBe('ERR_IDEMPOTENCY_MISMATCH');
    const bad = await api('POST', '/api/v1/payments/initiate', {
      token,
      body,
      headers: { 'idempotency-key': 'no spaces!' },
    });
    expect(bad.status).toBe(400);
  });

  it('reads a month with no activity as zeros', async () => {
    const resellerId = randomUUID();
    const token = await tokenFor('reseller', { resellerId });
    const r = await api('GET', `/api/v1/billing/summary?reseller_id=${resellerId}&month=2020-01`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      month: '2020-01',
      currency: 'XOF',
      total_fcfa: 0,
      split: { reseller_fcfa: 0, operator_fcfa: 0, provider_fee_fcfa: 0 },
      sessions_count: 0,
      // Beside the spec's fields: the total by how it was paid, and the agents' share of the
      // month (docs/agents.md).
      by_channel: { mobile_money: 0, voucher: 0, cash: 0, counter: 0 },
      agents: { sold_fcfa: 0, commission_fcfa: 0, reseller_after_commission_fcfa: 0 },
    });
  });
});

describe('vouchers over HTTP', () => {
  it('generates, lists, exports as CSV and redeems once', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Chez Awa' });
    const admin = await tokenFor('admin');
    const owner = await tokenFor('reseller', { resellerId });
    const gen = await api('POST', '/api/v1/vouchers/generate', {
      token: admin,
      body: { forfait_id: forfait.id, reseller_id: resellerId, n: 3 },
    });
    expect(gen.status).toBe(201);
    const { items, batch_id } = gen.body as { items: { code: string }[]; batch_id: string };
    expect(items).toHaveLength(3);

    const list = await api('GET', '/api/v1/vouchers?status=active', { token: owner });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 3, page: 1, pages: 1 });
    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    expect((await api('GET', `/api/v1/vouchers?reseller_id=${resellerId}`, { token: other })).status).toBe(
      403,
    );
    expect((await api('GET', '/api/v1/vouchers', { token: admin })).status).toBe(400);

    const csv = await fetch(`${server.url()}/api/v1/vouchers/export?batch_id=${batch_id}`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    // French by default: `;` between fields, French headers, a byte-order mark first.
    const body = new Uint8Array(await csv.arrayBuffer());
    expect([...body.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(body).trim().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(
      'Code;Forfait;Prix (FCFA);Statut;Revendeur;Créé le;Utilisé le;À utiliser avant le;Devise',
    );
    expect(lines[1]).toMatch(/^[A-Z0-9]+;[^;]+;\d+;disponible;[^;]*;\d\d\/\d\d\/\d{4} \d\d:\d\d;;/);
    const english = await fetch(`${server.url()}/api/v1/vouchers/export?batch_id=${batch_id}&lang=en`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect((await english.text()).split('\r\n')[0]).toBe(
      'Code,Plan,Price (FCFA),Status,Reseller,Created,Used,Use by,Currency',
    );
    expect(
      lines
        .slice(1)
        .map((l) => l.split(';')[0])
        .sort(),
    ).toEqual(items.map((v) => v.code).sort());
    const foreign = await fetch(`${server.url()}/api/v1/vouchers/export?batch_id=${batch_id}`, {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(foreign.status).toBe(403);

    const subscriber = await tokenFor('subscriber');
    const code = items[0]?.code as string;
    const redeemed = await api('POST', '/api/v1/vouchers/redeem', {
      token: subscriber,
      body: { code: code.toLowerCase() },
    });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ forfait_id: forfait.id, source: 'voucher' });
    const again = await api('POST', '/api/v1/vouchers/redeem', { token: subscriber, body: { code } });
    expect(again.status).toBe(409);
    expect((again.body as ErrorBody).error.code).toBe('ERR_CONFLICT');

    const summary = await api('GET', `/api/v1/billing/summary?reseller_id=${resellerId}&month=${month()}`, {
      token: owner,
    });
    expect(summary.body).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 0 });
  });
});

describe('voucher lists by cursor over HTTP', () => {
  it('answers next_cursor, which reads the next page, and 400 for a cursor it did not make', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Chez Awa' });
    const owner = await tokenFor('reseller', { resellerId });
    await api('POST', '/api/v1/vouchers/generate', {
      token: await tokenFor('admin'),
      body: { forfait_id: forfait.id, reseller_id: resellerId, n: 3 },
    });
    const first = await api('GET', '/api/v1/vouchers?page_size=2', { token: owner });
    const body = first.body as { items: { code: string }[]; total: number; next_cursor: string };
    expect(body).toMatchObject({ total: 3, page: 1, pages: 2 });
    const second = await api('GET', `/api/v1/vouchers?page_size=2&cursor=${body.next_cursor}`, {
      token: owner,
    });
    expect(second.body).toMatchObject({ page: 2, items: [expect.any(Object)] });
    expect((second.body as { next_cursor?: string }).next_cursor).toBeUndefined();
    const forged = await api('GET', '/api/v1/vouchers?page_size=2&cursor=abc.def', { token: owner });
    expect(forged.status).toBe(400);
  });

  it('refuses vouchers for a reseller the platform does not know with 404', async () => {
    const res = await api('POST', '/api/v1/vouchers/generate', {
      token: await tokenFor('admin'),
      body: { forfait_id: forfait.id, reseller_id: randomUUID(), n: 1 },
    });
    expect(res.status).toBe(404);
    expect((res.body as ErrorBody).error.code).toBe('ERR_NOT_FOUND');
  });
});

describe('bad billing requests', () => {
  it.each([
    [
      'an unknown provider',
      'POST',
      '/api/v1/payments/initiate',
      'subscriber',
      { forfait_id: SEED_FORFAITS[0]?.id, provider: 'paypal' },
    ],
    [
      'a bad forfait uuid',
      'POST',
      '/api/v1/payments/initiate',
      'subscriber',
      { forfait_id: 'nope', provider: 'wave' },
    ],
    [
      'an unknown field',
      'POST',
      '/api/v1/payments/initiate',
      'subscriber',
      { forfait_id: SEED_FORFAITS[0]?.id, provider: 'wave', amount_fcfa: 1 },
    ],
    [
      'a bad month',
      'GET',
      `/api/v1/billing/summary?reseller_id=${randomUUID()}&month=2024-13`,
      'admin',
      undefined,
    ],
    ['a bad reseller uuid', 'GET', '/api/v1/billing/summary?reseller_id=x&month=2024-01', 'admin', undefined],
    ['a bad payment id', 'GET', '/api/v1/payments/not-a-uuid/status', 'subscriber', undefined],
    [
      'n = 0',
      'POST',
      '/api/v1/vouchers/generate',
      'admin',
      { forfait_id: SEED_FORFAITS[0]?.id, reseller_id: randomUUID(), n: 0 },
    ],
    [
      'n = 1001',
      'POST',
      '/api/v1/vouchers/generate',
      'admin',
      { forfait_id: SEED_FORFAITS[0]?.id, reseller_id: randomUUID(), n: 1001 },
    ],
  ] as const)('answers 400 ERR_VALIDATION for %s', async (_name, method, path, role, body) => {
    const r = await api(method, path, { token: await tokenFor(role), ...(body ? { body } : {}) });
    expect(r.status).toBe(400);
    expect((r.body as ErrorBody).error.code).toBe('ERR_VALIDATION');
  });

  it('answers 404 for an unknown forfait and an unknown NAS id', async () => {
    const token = await tokenFor('subscriber');
    const a = await api('POST', '/api/v1/payments/initiate', {
      token,
      body: { forfait_id: randomUUID(), provider: 'wave' },
    });
    expect(a.status).toBe(404);
    const b = await api('POST', '/api/v1/payments/initiate', {
      token,
      body: { forfait_id: forfait.id, provider: 'wave', nas_id: 'access_nowhere' },
    });
    expect(b.status).toBe(404);
  });

  it('answers 401 to a webhook with a wrong secret, and 409 to an amount mismatch', async () => {
    const token = await tokenFor('subscriber');
    const init = await api('POST', '/api/v1/payments/initiate', {
      token,
      body: { forfait_id: forfait.id, provider: 'wave' },
    });
    const id = (init.body as { transaction_id: string }).transaction_id;
    const event = {
      event_id: randomUUID(),
      transaction_id: id,
      status: 'completed',
      amount_fcfa: forfait.price_fcfa,
      provider: 'wave',
    };
    const wrong = await api('POST', '/api/v1/payments/webhook', {
      body: event,
      headers: { 'x-provider-secret': 'wrong' },
    });
    expect(wrong.status).toBe(401);
    const secret = process.env.WEBHOOK_SECRET as string;
    const mismatch = await api('POST', '/api/v1/payments/webhook', {
      body: { ...event, amount_fcfa: 1 },
      headers: { 'x-provider-secret': secret },
    });
    expect(mismatch.status).toBe(409);
    const ok = await api('POST', '/api/v1/payments/webhook', {
      body: event,
      headers: { 'x-provider-secret': secret },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: 'processed' });
    const replay = await api('POST', '/api/v1/payments/webhook', {
      body: event,
      headers: { 'x-provider-secret': secret },
    });
    expect(replay.body).toEqual({ status: 'processed' });
  });
});
