import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { Access } from '../../functions/store/access-codes.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { Session } from '../../functions/store/sessions.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, loginAs, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
const today = () => clock.iso().slice(0, 10);

const api = (method: string, path: string, token: string, body?: unknown) =>
  call(server.url(), method, path, { token, ...(body !== undefined ? { body } : {}) });

type Page<T> = { items: T[]; next_cursor?: string };

/** Every item of a cursor-paged list, page after page. */
async function allPages<T>(path: string, token: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await api('GET', `${path}${cursor ? `${sep}cursor=${cursor}` : ''}`, token);
    expect(r.status).toBe(200);
    const body = r.body as unknown as Page<T>;
    items.push(...body.items);
    cursor = body.next_cursor;
    pages += 1;
  } while (cursor && pages < 50);
  return { items, pages };
}

/** A completed sandbox payment of a subscriber at a hotspot: its id. */
async function paidAt(nasId: string): Promise<string> {
  const subscriber = await login(server.url(), newMsisdn());
  const initiated = await api('POST', '/api/v1/payments/initiate', subscriber, {
    forfait_id: forfait.id,
    provider: 'wave',
    nas_id: nasId,
  });
  const { payment_url, transaction_id } = initiated.body as { payment_url: string; transaction_id: string };
  const html = await (await fetch(payment_url)).text();
  const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
  await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' });
  return transaction_id;
}

describe("a reseller's sales by day", () => {
  it('counts every sale once under its day, hotspot and forfait, even when they land together', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Ventes', country: 'CI' });
    const admin = await tokenFor('admin');
    const made = await api('POST', '/api/v1/vouchers/generate', admin, {
      forfait_id: forfait.id,
      reseller_id: resellerId,
      n: 12,
    });
    const codes = (made.body.items as { code: string }[]).map((v) => v.code);

    // Twelve redemptions at once: the day's counters and the month's aggregate move together.
    const redeemed = await Promise.all(
      codes.map(
        async (code) =>
          (await api('POST', '/api/v1/vouchers/redeem', await tokenFor('subscriber'), { code })).status,
      ),
    );
    expect(redeemed).toEqual(codes.map(() => 200));
    const nasId = await hotspotOf(resellerId, 'access_sales');
    await paidAt(nasId);

    const owner = await tokenFor('reseller', { resellerId });
    const sales = await api(
      'GET',
      `/api/v1/billing/sales?reseller_id=${resellerId}&from=${today()}&to=${today()}`,
      owner,
    );
    expect(sales.status).toBe(200);
    const total = 13 * forfait.price_fcfa;
    expect(sales.body).toEqual({
      reseller_id: resellerId,
      currency: 'XOF',
      from: today(),
      to: today(),
      days: [
        {
          day: today(),
          total_fcfa: total,
          sales_count: 13,
          // The one mobile-money sale bears the provider's fee (2 %); the vouchers none.
          provider_fee_fcfa: Math.round(forfait.price_fcfa * 0.02),
          commission_fcfa: 0,
          by_hotspot: { '-': 12 * forfait.price_fcfa, [nasId]: forfait.price_fcfa },
          by_forfait: { [forfait.id]: total },
          by_channel: { voucher: 12 * forfait.price_fcfa, mobile_money: forfait.price_fcfa },
          by_agent: {},
        },
      ],
    });
    const summary = await api(
      'GET',
      `/api/v1/billing/summary?reseller_id=${resellerId}&month=${today().slice(0, 7)}`,
      owner,
    );
    expect(summary.body.total_fcfa).toBe(total);
    expect(summary.body.split).toMatchObject({ provider_fee_fcfa: Math.round(forfait.price_fcfa * 0.02) });
  });

  it('answers another reseller 403, and 400 to a span backwards or over 93 days', async () => {
    const resellerId = randomUUID();
    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    const path = `/api/v1/billing/sales?reseller_id=${resellerId}`;
    expect((await api('GET', `${path}&from=2024-01-01&to=2024-01-31`, other)).status).toBe(403);
    const owner = await tokenFor('reseller', { resellerId });
    const backwards = await api('GET', `${path}&from=2024-02-01&to=2024-01-01`, owner);
    const long = await api('GET', `${path}&from=2024-01-01&to=2024-06-01`, owner);
    expect([backwards.status, long.status]).toEqual([400, 400]);
    expect((long.body as { error: { code: string } }).error.code).toBe('ERR_VALIDATION');
  });
});

describe("a reseller's live sessions", () => {
  it('pages through the open sessions of all its hotspots by cursor, each once, with the time its code has left', async () => {
    const resellerId = randomUUID();
    const nasIds = [await hotspotOf(resellerId, 'access_live'), await hotspotOf(resellerId, 'access_live')];
    const code = `LIVE${randomUUID().slice(0, 6).toUpperCase()}`;
    const now = clock.iso();
    await Access.put({
      code,
      reseller_id: resellerId,
      source: 'payment',
      source_id: randomUUID(),
      forfait_id: forfait.id,
      offer: { duration_hours: 24, data_limit_mb: 1024, cir_kbps: 512, mir_kbps: 2048, max_devices: 5 },
      created_at: now,
      started_at: now,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      ids.push(id);
      await Session.put({
        id,
        code,
        nas_id: nasIds[i % 2] as string,
        reseller_id: resellerId,
        device: `02:00:00:00:00:0${i}`,
        status: 'open',
        total_bytes: 1000 * i,
        session_time_s: 60,
        started_at: now,
        last_report_at: now,
      });
    }
    const owner = await tokenFor('reseller', { resellerId });
    const { items, pages } = await allPages<{ id: string; seconds_left?: number }>(
      '/api/v1/sessions?limit=2',
      owner,
    );
    expect(items.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(items[0]?.seconds_left).toBeGreaterThan(3500);

    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    expect((await api('GET', `/api/v1/sessions?reseller_id=${resellerId}`, other)).status).toBe(403);
    expect((await api('GET', '/api/v1/sessions?cursor=bm90LWpzb24', owner)).status).toBe(400);
  });
});

describe("a reseller's payments", () => {
  it('lists them newest first by cursor, a completed one whose code was never used as paid but not connected', async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    const nasId = await hotspotOf(reseller.resellerId, 'access_pay');
    const first = await paidAt(nasId);
    const second = await paidAt(nasId);
    const third = await paidAt(nasId);

    const { items } = await allPages<{
      id: string;
      status: string;
      paid_not_connected: boolean;
      msisdn?: string;
    }>('/api/v1/payments?limit=2', reseller.token);
    expect(items.map((p) => p.id)).toEqual([third, second, first]);
    expect(items.every((p) => p.status === 'completed' && p.paid_not_connected)).toBe(true);
    expect(items[0]?.msisdn).toMatch(/^\+225\*+\d{4}$/);

    // A gateway delivery for another amount is refused, and counted on the payment: a mismatch.
    const buyer = await login(server.url(), newMsisdn());
    const init = await api('POST', '/api/v1/payments/initiate', buyer, {
      forfait_id: forfait.id,
      provider: 'wave',
      nas_id: nasId,
    });
    const id = (init.body as { transaction_id: string }).transaction_id;
    const mismatch = await call(server.url(), 'POST', '/api/v1/payments/webhook', {
      body: {
        event_id: randomUUID(),
        transaction_id: id,
        status: 'completed',
        amount_fcfa: 1,
        provider: 'wave',
      },
      headers: { 'x-provider-secret': process.env.WEBHOOK_SECRET as string },
    });
    expect(mismatch.status).toBe(409);
    const admin = await tokenFor('admin');
    const listed = await api('GET', `/api/v1/payments?reseller_id=${reseller.resellerId}&limit=1`, admin);
    expect(listed.body.items).toMatchObject([
      { id, status: 'pending', refusal_count: 1, paid_not_connected: false },
    ]);

    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    expect((await api('GET', `/api/v1/payments?reseller_id=${reseller.resellerId}`, other)).status).toBe(403);
  });
});

describe('the activity log', () => {
  it("records an operator's writes (who, what, from where, with the answer) and not reads nor subscribers'", async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    const nasId = await hotspotOf(reseller.resellerId, 'access_log');
    const put = await api('PUT', `/api/v1/branding/${nasId}`, reseller.token, { primary_color: '#123456' });
    expect(put.status).toBe(200);
    const refused = await api('PUT', `/api/v1/branding/${nasId}`, reseller.token, {
      primary_color: '#123456',
      x: 1,
    });
    expect(refused.status).toBe(400);
    await api('GET', '/api/v1/network/vlans', reseller.token);
    const subscriber = await login(server.url(), newMsisdn());
    await api('POST', '/api/v1/vouchers/redeem', subscriber, { code: 'ABCDEFGHJK' });

    const admin = await loginAs(server.url(), 'admin');
    const sub = JSON.parse(Buffer.from(reseller.token.split('.')[1] as string, 'base64url').toString())
      .sub as string;
    const { items } = await allPages<Record<string, unknown>>(
      `/api/v1/activity?actor=${sub}&limit=1`,
      admin.token,
    );
    // Validation runs before the handler: the refused body never reached it, so only the write is logged.
    expect(items).toEqual([
      {
        at: expect.any(String),
        id: expect.any(String),
        actor_sub: sub,
        actor_ref: `SUB-${reseller.msisdn.slice(1)}`,
        role: 'reseller',
        reseller_id: reseller.resellerId,
        action: 'PUT /api/v1/branding/{nas_id}',
        target: `/api/v1/branding/${nasId}`,
        status: 200,
        ip: '127.0.0.1',
      },
    ]);
    const day = await api('GET', `/api/v1/activity?day=${today()}`, admin.token);
    const actions = (day.body.items as { action: string; role: string }[]).map((e) => e.role);
    expect(actions).not.toContain('subscriber');
    expect((await api('GET', '/api/v1/activity', reseller.token)).status).toBe(403);
  });

  it('keeps what the write said, for a sentence (how many codes of which forfait, for whom), never a phone number', async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    await recordReseller({ resellerId: reseller.resellerId, name: 'Chez Awa', country: 'CI' });
    await hotspotOf(reseller.resellerId, 'access_facts');
    const forfait = SEED_FORFAITS[1] as { id: string };
    const made = await api('POST', '/api/v1/vouchers/batches', reseller.token, {
      forfait_id: forfait.id,
      reseller_id: reseller.resellerId,
      n: 30,
    });
    expect(made.status).toBe(201);
    const invited = await api('POST', '/api/v1/agents', reseller.token, {
      msisdn: newMsisdn(),
      name: 'Boutique Koné',
      commission_bp: 1000,
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const admin = await loginAs(server.url(), 'admin');
    const sub = JSON.parse(Buffer.from(reseller.token.split('.')[1] as string, 'base64url').toString())
      .sub as string;
    const { items } = await allPages<{ action: string; facts?: Record<string, unknown> }>(
      `/api/v1/activity?actor=${sub}`,
      admin.token,
    );
    expect(items.find((e) => e.action === 'POST /api/v1/vouchers/batches')?.facts).toEqual({
      n: 30,
      forfait_id: forfait.id,
      reseller_id: reseller.resellerId,
    });
    expect(items.find((e) => e.action === 'POST /api/v1/agents')?.facts).toEqual({ name: 'Boutique Koné' });
    expect(JSON.stringify(items)).not.toMatch(/"msisdn"|\+225/);
  });
});
