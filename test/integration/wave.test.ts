import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { wave as waveGateway } from '../../functions/billing/gateways/wave.js';
import { refundByOperator } from '../../functions/billing/payments/refund.js';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { resetSecrets } from '../../functions/core/secrets.js';
import { getAccessCode, listCodesOf } from '../../functions/store/access-codes.js';
import { getDisconnect } from '../../functions/store/disconnects.js';
import { transact } from '../../functions/store/entity.js';
import { getPayment } from '../../functions/store/payments.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { openSessionItems, type RadiusSession } from '../../functions/store/sessions.js';
import { type FakeWave, fakeWave } from '../support/fake-providers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, tokenFor, useLocalServer } from '../support/http.js';
import { listEntitlements } from '../support/store-reads.js';

/**
 * Wave Checkout, direct, against a local fake of Wave's API speaking its documented wire format
 * (test/support/fake-providers.ts), through the local server: paid (initiate -> launch URL ->
 * signed webhook -> status API -> code), forged and stale signatures refused before anything is
 * read or written, replays and parallel deliveries credited once, a refund taking the code back.
 * The shared adapter tests (payment-providers.test.ts) run against the same fake too.
 */
const server = useLocalServer();
const forfait = SEED_FORFAITS[2] as (typeof SEED_FORFAITS)[number];
const price = forfait.price_fcfa;
type ErrorBody = { error: { code: string } };
let wave: FakeWave;

beforeAll(async () => {
  wave = await fakeWave();
  Object.assign(process.env, {
    PAYMENT_GATEWAY: 'wave',
    PROVIDER_TIMEOUT_MS: '2500',
    PROVIDER_ATTEMPTS: '2',
    AGGREGATOR_RETRY_BASE_MS: '1',
    WAVE_BASE_URL: wave.url,
    WAVE_API_KEY: wave.apiKey,
    WAVE_WEBHOOK_SECRET: wave.webhookSecret,
  });
  resetConfig();
  resetSecrets();
});
afterAll(async () => {
  await wave.close();
  delete process.env.PAYMENT_GATEWAY;
  resetConfig();
});

async function initiate(country: 'SN' | 'CI' | 'CM' = 'SN', provider = 'wave') {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country });
  const nasId = await hotspotOf(resellerId, 'access_pp');
  const sub = randomUUID();
  const token = await tokenFor('subscriber', { sub });
  const res = await call<{ transaction_id: string; payment_url: string }>(
    server.url(),
    'POST',
    '/api/v1/payments/initiate',
    { token, body: { forfait_id: forfait.id, provider, nas_id: nasId } },
  );
  expect(res.status).toBe(201);
  return { id: res.body.transaction_id, url: res.body.payment_url, sub, token, resellerId, nasId };
}

/** A Wave webhook delivery, signed with the endpoint's secret unless told otherwise. */
function signed(raw: string, options: { t?: number; secret?: string } = {}) {
  return {
    body: raw,
    headers: { 'content-type': 'application/json', 'wave-signature': wave.signature(raw, options) },
  };
}

const notify = (n: { body: string; headers: Record<string, string> }) =>
  call(server.url(), 'POST', '/api/v1/payments/notify/wave', { body: n.body, headers: n.headers });

const statusChecks = () => wave.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/v1/')).length;

describe('Wave Checkout, direct', () => {
  it('is paid end to end: initiate -> wave_launch_url -> signed completion -> status API -> code', async () => {
    const { id, url, sub, token, resellerId } = await initiate();
    const session = wave.sessionOf(id);
    // The buyer is sent to Wave's launch URL; the session carries our payment id and price.
    expect(url).toBe(session.wave_launch_url);
    expect(session).toMatchObject({ amount: String(price), currency: 'XOF', client_reference: id });
    const opened = wave.calls.find((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions');
    expect(JSON.parse(opened?.body ?? '{}')).toMatchObject({
      success_url: expect.stringContaining(`payment=${id}`),
      error_url: expect.stringContaining(`payment=${id}`),
    });
    expect((await getPayment(id))?.provider_reference).toBe(session.id);

    // The buyer opens the launch URL and pays in the app.
    expect((await fetch(url)).status).toBe(200);
    const checks = statusChecks();
    const res = await notify(signed(wave.event(id, 'checkout.session.completed')));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'processed' });
    // Credited only after GET /v1/checkout/sessions/<id> said complete and succeeded.
    expect(statusChecks()).toBe(checks + 1);
    const paid = await call<{ status: string; access_code?: string }>(
      server.url(),
      'GET',
      `/api/v1/payments/${id}/status`,
      { token },
    );
    expect(paid.body).toMatchObject({
      status: 'completed',
      access_code: expect.stringMatching(/^[A-Z2-9]{10}$/),
    });
    expect(await listCodesOf(sub)).toHaveLength(1);
    expect((await getMonthlyRevenue(resellerId, clock.iso().slice(0, 7))).total_fcfa).toBe(price);
  });

  it('opens the same session when asked again for the same payment (Idempotency-Key = our payment id)', async () => {
    const { id } = await initiate();
    const session = wave.sessionOf(id);
    const again = await waveGateway.adapter().createPayment({
      reference: id,
      amount_fcfa: price,
      currency: 'XOF',
      provider: 'wave',
      description: 'WiFi',
      notify_url: 'http://127.0.0.1/notify',
      return_url: 'http://127.0.0.1/portal',
    });
    expect(again).toEqual({ payment_url: session.wave_launch_url, provider_reference: session.id });
    expect([...wave.sessions.values()].filter((s) => s.client_reference === id)).toHaveLength(1);
  });

  it('credits nothing for a completion event while Wave still shows the session open', async () => {
    const { id, sub } = await initiate();
    const res = await notify(
      signed(
        wave.event(id, 'checkout.session.completed', {
          checkout_status: 'complete',
          payment_status: 'succeeded',
        }),
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'pending' });
    expect(await listEntitlements(sub)).toHaveLength(0);
  });

  it('refuses a forged Wave-Signature (401 ERR_SIGNATURE_INVALID) before reading or writing anything', async () => {
    const { id, sub } = await initiate();
    wave.complete(id);
    const checks = statusChecks();
    for (const headers of [
      signed(wave.event(id, 'checkout.session.completed'), { secret: 'an-attackers-secret' }).headers,
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json', 'wave-signature': 'v1=00' },
    ]) {
      const res = await notify({ body: wave.event(id, 'checkout.session.completed'), headers });
      expect(res.status).toBe(401);
      expect((res.body as ErrorBody).error.code).toBe('ERR_SIGNATURE_INVALID');
    }
    expect(statusChecks()).toBe(checks);
    const p = await getPayment(id);
    expect(p?.status).toBe('pending');
    expect(p?.refusals).toBeUndefined();
    expect(await listEntitlements(sub)).toHaveLength(0);
  });

  it('refuses a genuine delivery whose signed timestamp is stale (> 300 s): 401 ERR_SIGNATURE_STALE, nothing credited', async () => {
    const { id, sub } = await initiate();
    wave.complete(id);
    const raw = wave.event(id, 'checkout.session.completed');
    const res = await notify(signed(raw, { t: Math.floor(Date.now() / 1000) - 301 }));
    expect(res.status).toBe(401);
    expect((res.body as ErrorBody).error.code).toBe('ERR_SIGNATURE_STALE');
    expect(await listEntitlements(sub)).toHaveLength(0);
    // The same event with a fresh signature is applied once.
    expect((await notify(signed(raw))).status).toBe(200);
    expect(await listEntitlements(sub)).toHaveLength(1);
  });

  it('credits a replayed delivery once: the same event again is 409 ERR_NOTIFICATION_REPLAYED', async () => {
    const { id, sub, resellerId } = await initiate();
    wave.complete(id);
    const n = signed(wave.event(id, 'checkout.session.completed'));
    expect((await notify(n)).status).toBe(200);
    const replay = await notify(n);
    expect(replay.status).toBe(409);
    expect((replay.body as ErrorBody).error.code).toBe('ERR_NOTIFICATION_REPLAYED');
    expect(await listEntitlements(sub)).toHaveLength(1);
    expect((await getMonthlyRevenue(resellerId, clock.iso().slice(0, 7))).total_fcfa).toBe(price);
  });

  it('creates one code from 10 concurrent deliveries of the same completion', async () => {
    const { id, sub, resellerId } = await initiate();
    wave.complete(id);
    const n = signed(wave.event(id, 'checkout.session.completed'));
    const answers = await Promise.all(Array.from({ length: 10 }, () => notify(n)));
    const statuses = answers.map((a) => a.status);
    // Exactly one applied it; the others saw it applied (409 replayed) or settled (200).
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(await listCodesOf(sub)).toHaveLength(1);
    expect(await listEntitlements(sub)).toHaveLength(1);
    expect((await getMonthlyRevenue(resellerId, clock.iso().slice(0, 7))).total_fcfa).toBe(price);
  });

  it('fails a payment whose checkout Wave shows cancelled', async () => {
    const { id } = await initiate();
    wave.cancel(id);
    const res = await notify(signed(wave.event(id, 'checkout.session.payment_failed')));
    expect(res.status).toBe(200);
    expect((await getPayment(id))?.status).toBe('failed');
  });

  it('takes the code back when Wave refunds the payment (its refund event, confirmed by the status API), once', async () => {
    const { id, sub, resellerId, token, nasId } = await initiate('CI');
    wave.complete(id);
    expect((await notify(signed(wave.event(id, 'checkout.session.completed')))).status).toBe(200);
    const code = (await getPayment(id))?.access_code as string;
    expect(code).toBeTruthy();
    // A refund event Wave has not made yet (the API still says succeeded) takes nothing back.
    const early = await notify(signed(wave.event(id, 'checkout.session.refunded')));
    expect(early.status).toBe(200);
    expect((await getPayment(id))?.status).toBe('completed');

    // The buyer is online with the code: an open RADIUS session on the hotspot's router.
    const now = new Date().toISOString();
    const online: RadiusSession = {
      id: randomUUID().replace(/-/g, ''),
      code,
      nas_id: nasId,
      reseller_id: resellerId,
      device: '02:00:00:00:00:01',
      acct_session_id: 'A1',
      nas_ip: '192.0.2.10',
      status: 'open',
      total_bytes: 0,
      session_time_s: 0,
      started_at: now,
      last_report_at: now,
    };
    await transact(openSessionItems(online, 0, {}));

    wave.sessionOf(id).payment_status = 'refunded';
    const n = signed(wave.event(id, 'checkout.session.refunded'));
    const res = await notify(n);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'processed' });
    expect(await getPayment(id)).toMatchObject({ status: 'refunded' });
    const revoked = await getAccessCode(code);
    expect(revoked?.revoked_at).toEqual(expect.any(String));
    expect(Date.parse(revoked?.expires_at as string)).toBeLessThanOrEqual(Date.now());
    const [ent] = await listEntitlements(sub);
    expect(Date.parse(ent?.expires_at as string)).toBeLessThanOrEqual(Date.now());
    expect((await getMonthlyRevenue(resellerId, clock.iso().slice(0, 7))).total_fcfa).toBe(0);
    // Online: its router is asked to disconnect it (the Disconnect path of a revoked code).
    expect(await getDisconnect(online.id)).toMatchObject({ reason: 'code_revoked' });
    // The buyer's status read no longer shows a code.
    const read = await call(server.url(), 'GET', `/api/v1/payments/${id}/status`, { token });
    expect(read.body).toMatchObject({ status: 'refunded' });
    expect(read.body).not.toHaveProperty('access_code');
    // Told again (a replay, or another refund event): nothing more is taken off.
    expect((await notify(n)).status).toBe(409);
    await notify(signed(wave.event(id, 'checkout.session.refunded')));
    expect((await getMonthlyRevenue(resellerId, clock.iso().slice(0, 7))).total_fcfa).toBe(0);
  });

  it('is routed by the one table: Wave payments in SN and CI go to Wave directly, the rest to PAYMENT_GATEWAY', async () => {
    Object.assign(process.env, { PAYMENT_GATEWAY: 'sandbox', PAYMENT_DIRECT_GATEWAYS: 'wave' });
    resetConfig();
    try {
      const gatewayOf = async (country: 'SN' | 'CI' | 'CM', provider: string) =>
        (await getPayment((await initiate(country, provider)).id))?.gateway;
      expect(await gatewayOf('SN', 'wave')).toBe('wave');
      expect(await gatewayOf('CI', 'wave')).toBe('wave');
      expect(await gatewayOf('SN', 'orange_money')).toBe('sandbox');
      expect(await gatewayOf('CM', 'wave')).toBe('sandbox');
      // A deployment that did not enable Wave keeps its Wave payments on its gateway.
      process.env.PAYMENT_DIRECT_GATEWAYS = '';
      resetConfig();
      expect(await gatewayOf('SN', 'wave')).toBe('sandbox');
    } finally {
      Object.assign(process.env, { PAYMENT_GATEWAY: 'wave', PAYMENT_DIRECT_GATEWAYS: '' });
      resetConfig();
    }
  });

  it('is refunded by an operator (payments refund): Wave gives the money back, then the code is taken back', async () => {
    const { id, resellerId } = await initiate();
    // Not paid yet: nothing to refund (409), Wave not asked.
    await expect(refundByOperator(id)).rejects.toMatchObject({ code: 'ERR_CONFLICT' });
    wave.complete(id);
    expect((await notify(signed(wave.event(id, 'checkout.session.completed')))).status).toBe(200);
    const code = (await getPayment(id))?.access_code as string;
    expect(await refundByOperator(id)).toBe('refunded');
    expect(
      wave.calls.filter((c) => c.path === `/v1/checkout/sessions/${wave.sessionOf(id).id}/refund`),
    ).toHaveLength(1);
    expect(wave.sessionOf(id).payment_status).toBe('refunded');
    expect((await getPayment(id))?.status).toBe('refunded');
    expect((await getAccessCode(code))?.revoked_at).toEqual(expect.any(String));
    // Wave's own refund event afterwards changes nothing more.
    expect((await notify(signed(wave.event(id, 'checkout.session.refunded')))).status).toBe(200);
    expect((await getMonthlyRevenue(resellerId, clock.iso().slice(0, 7))).total_fcfa).toBe(0);
  });
});
