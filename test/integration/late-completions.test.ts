import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { handler as reconcile } from '../../functions/billing/reconcile.js';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { resetSecrets } from '../../functions/core/secrets.js';
import { listCodesOf } from '../../functions/store/access-codes.js';
import { listAlertsByStatus } from '../../functions/store/alerts.js';
import { getPayment } from '../../functions/store/payments.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { recordSandboxPayment } from '../../functions/store/sandbox-payments.js';
import { type FakeCinetPay, fakeCinetPay } from '../support/fake-providers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, tokenFor, useLocalServer } from '../support/http.js';
import { listEntitlements } from '../support/store-reads.js';

/**
 * A completion the gateway confirms through its status API, for the payment's amount and
 * currency, is credited even after the payment was `failed` or `expired` (the buyer's money was
 * taken): exactly once, whatever races it (parallel notifications, reconciliation, status
 * reads). Only another amount or currency waits for a person. Real DynamoDB Local, the local
 * server, and a fake CinetPay speaking its documented wire format.
 */
const server = useLocalServer();
const forfait = SEED_FORFAITS[2] as (typeof SEED_FORFAITS)[number];
let cinetpay: FakeCinetPay;

beforeAll(async () => {
  cinetpay = await fakeCinetPay();
  Object.assign(process.env, {
    PAYMENT_GATEWAY: 'cinetpay',
    PROVIDER_TIMEOUT_MS: '2500',
    PROVIDER_ATTEMPTS: '2',
    AGGREGATOR_RETRY_BASE_MS: '1',
    CINETPAY_BASE_URL: cinetpay.url,
    CINETPAY_SITE_ID: cinetpay.siteId,
    CINETPAY_API_KEY: cinetpay.apiKey,
    CINETPAY_SECRET_KEY: cinetpay.secretKey,
  });
  resetConfig();
  resetSecrets();
});
afterAll(async () => {
  await cinetpay.close();
  delete process.env.PAYMENT_GATEWAY;
  resetConfig();
});

async function initiate() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId, 'access_pp');
  const sub = randomUUID();
  const token = await tokenFor('subscriber', { sub });
  const res = await call<{ transaction_id: string }>(server.url(), 'POST', '/api/v1/payments/initiate', {
    token,
    body: { forfait_id: forfait.id, provider: 'orange_money', nas_id: nasId },
  });
  expect(res.status).toBe(201);
  return { id: res.body.transaction_id, sub, token, resellerId };
}

/** A signed notification; `n` makes each one distinct (CinetPay tells them apart by their x-token). */
function notify(id: string, n = 0) {
  const form = cinetpay.notificationForm(id, {
    cpm_trans_date: `2026-11-23 20:${String(n).padStart(2, '0')}:00`,
  });
  return call<{ status?: string; error?: { code: string } }>(
    server.url(),
    'POST',
    '/api/v1/payments/notify/cinetpay',
    {
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-token': cinetpay.sign(form) },
    },
  );
}

/** The clock of the functions, `ms` ahead, for the time of `fn`. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  clock.set(() => Date.now() + ms);
  try {
    return await fn();
  } finally {
    clock.reset();
  }
}

async function failed() {
  const p = await initiate();
  cinetpay.refuse(p.id);
  expect((await notify(p.id, 59)).body).toEqual({ status: 'processed' });
  expect((await getPayment(p.id))?.status).toBe('failed');
  return { ...p, at: 0 };
}

async function expired() {
  const p = await initiate();
  await later(121 * 60_000, () => reconcile());
  expect((await getPayment(p.id))?.status).toBe('expired');
  // The functions' clock stood 121 minutes ahead: what follows happens after that.
  return { ...p, at: 121 * 60_000 };
}

/** Credited exactly once: completed, one entitlement, one access code, the revenue counted once. */
async function creditedOnce(p: { id: string; sub: string; resellerId: string }) {
  const stored = await getPayment(p.id);
  expect(stored).toMatchObject({ status: 'completed', access_code: expect.any(String) });
  expect(await listEntitlements(p.sub)).toHaveLength(1);
  const codes = await listCodesOf(p.sub);
  expect(codes.map((c) => c.code)).toEqual([stored?.access_code]);
  const revenue = await getMonthlyRevenue(p.resellerId, clock.iso().slice(0, 7));
  expect(revenue.total_fcfa).toBe(forfait.price_fcfa);
}

describe.each([
  ['failed', failed],
  ['expired', expired],
])('a completion the gateway confirms after the payment was %s', (_status, given) => {
  it('is credited exactly once by 10 parallel notifications and a reconciliation pass', async () => {
    const p = await given();
    cinetpay.pay(p.id);
    const [counts, ...answers] = await later(p.at + 5 * 60_000, () =>
      Promise.all([reconcile(), ...Array.from({ length: 10 }, (_, n) => notify(p.id, n))]),
    );
    for (const a of answers as Awaited<ReturnType<typeof notify>>[]) {
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ status: 'processed' });
    }
    expect((counts as Awaited<ReturnType<typeof reconcile>>).late_completed).toBeLessThanOrEqual(1);
    await creditedOnce(p);
    // Later deliveries and runs change nothing.
    expect((await notify(p.id, 30)).body).toEqual({ status: 'processed' });
    await later(p.at + 40 * 60_000, () => reconcile());
    await creditedOnce(p);
  });

  it('is found and credited by reconciliation alone, once', async () => {
    const p = await given();
    cinetpay.pay(p.id);
    // Past PAYMENT_LATE_CHECK_EVERY_MIN (30) after any earlier check: asked again.
    const counts = await later(p.at + 31 * 60_000, () => reconcile());
    expect(counts.late_completed).toBeGreaterThanOrEqual(1);
    await creditedOnce(p);
    const again = await later(p.at + 70 * 60_000, () => reconcile());
    expect(again.late_completed).toBe(0);
    await creditedOnce(p);
  });

  it('is credited by the buyer reading the payment status, which then shows the code', async () => {
    const p = await given();
    cinetpay.pay(p.id);
    const res = await later(p.at + 5 * 60_000, async () =>
      // A token of the (advanced) clock: the one of the initiate would have expired.
      call<{ status: string; access_code?: string }>(server.url(), 'GET', `/api/v1/payments/${p.id}/status`, {
        token: await tokenFor('subscriber', { sub: p.sub }),
      }),
    );
    expect(res.body).toMatchObject({ status: 'completed', access_code: expect.any(String) });
    await creditedOnce(p);
  });

  it('for another amount is not credited: it waits for a person (one alert), the payment as it was', async () => {
    const p = await given();
    const before = (await getPayment(p.id))?.status;
    cinetpay.pay(p.id, { amount: forfait.price_fcfa - 5 });
    const res = await notify(p.id, 1);
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe('ERR_AMOUNT_MISMATCH');
    await later(p.at + 5 * 60_000, () => reconcile());
    const stored = await getPayment(p.id);
    expect(stored?.status).toBe(before);
    expect(stored?.refusals?.[0]?.reason).toBe('confirmation_mismatch');
    expect(await listEntitlements(p.sub)).toHaveLength(0);
    const alerts = (await listAlertsByStatus('active')).filter((a) => a.site === `payment:${p.id}`);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ type: 'PAYMENT_MISMATCH' });
  });

  it('is not asked about once PAYMENT_LATE_CHECK_HOURS have passed since the payment was made', async () => {
    const p = await given();
    cinetpay.pay(p.id);
    const counts = await later(p.at + 25 * 3600_000, () => reconcile());
    expect((await getPayment(p.id))?.status).not.toBe('completed');
    expect(counts.late_completed).toBe(0);
  });
});

/**
 * Local mode shows the production path: the sandbox aggregator's status API answers what its
 * page decided, so a payment declined there and then paid there is a late completion the
 * gateway confirms, credited once with no alert, as a real gateway's would be.
 */
describe('the sandbox aggregator', () => {
  beforeAll(() => {
    process.env.PAYMENT_GATEWAY = 'sandbox';
    resetConfig();
  });
  afterAll(() => {
    process.env.PAYMENT_GATEWAY = 'cinetpay';
    resetConfig();
  });

  /** Presses a button of the sandbox's page for the payment, as the buyer would. */
  async function press(id: string, button: 'complete' | 'fail') {
    const res = await fetch(`${server.url()}/sandbox/pay/${id}/${button}`, {
      method: 'POST',
      redirect: 'manual',
    });
    // Bought at a hotspot: back to its portal once the webhook took the delivery.
    expect(res.status).toBe(303);
  }

  const alertsOf = async (id: string) =>
    (await listAlertsByStatus('active')).filter((a) => a.site === `payment:${id}`);

  it('credits a payment declined and then paid on its page once, with no alert; its status API says so', async () => {
    const p = await initiate();
    expect((await getPayment(p.id))?.gateway).toBe('sandbox');
    await press(p.id, 'fail');
    expect((await getPayment(p.id))?.status).toBe('failed');
    const declined = await call<{ status: string }>(server.url(), 'GET', `/sandbox/api/payments/${p.id}`);
    expect(declined.body).toMatchObject({ status: 'failed', amount_fcfa: forfait.price_fcfa });

    await press(p.id, 'complete');
    await creditedOnce(p);
    expect(await alertsOf(p.id)).toEqual([]);
    const paid = await call<{ status: string }>(server.url(), 'GET', `/sandbox/api/payments/${p.id}`);
    expect(paid.body).toEqual({
      status: 'completed',
      amount_fcfa: forfait.price_fcfa,
      currency: 'XOF',
      provider: 'orange_money',
    });
    // Pressing again changes nothing.
    await press(p.id, 'complete');
    await creditedOnce(p);
  });

  it('credits by reconciliation a payment its page paid after it expired, once', async () => {
    const p = await expired();
    expect(
      (await call(server.url(), 'GET', `/sandbox/api/payments/${p.id}`)).status,
      'nothing decided yet: unknown to the status API',
    ).toBe(404);
    // The page's decision is recorded, its delivery lost: reconciliation asks the status API.
    const stored = await getPayment(p.id);
    await recordSandboxPayment({
      reference: p.id,
      status: 'completed',
      amount_fcfa: stored?.amount_fcfa ?? 0,
      currency: 'XOF',
      provider: 'orange_money',
      decided_at: clock.iso(),
    });
    const counts = await later(p.at + 31 * 60_000, () => reconcile());
    // At least this one (another test's payment of the table may be credited by the same run).
    expect(counts.late_completed).toBeGreaterThanOrEqual(1);
    await creditedOnce(p);
    expect(await alertsOf(p.id)).toEqual([]);
  });

  it('does not credit a late completion delivered without its page paying: one alert, nothing credited', async () => {
    const p = await initiate();
    await press(p.id, 'fail');
    const res = await call(server.url(), 'POST', '/api/v1/payments/webhook', {
      headers: { 'x-provider-secret': process.env.WEBHOOK_SECRET as string },
      body: {
        event_id: randomUUID(),
        transaction_id: p.id,
        status: 'completed',
        amount_fcfa: forfait.price_fcfa,
        provider: 'orange_money',
      },
    });
    expect(res.status).toBe(200);
    expect((await getPayment(p.id))?.status).toBe('failed');
    expect(await listEntitlements(p.sub)).toHaveLength(0);
    expect(await alertsOf(p.id)).toHaveLength(1);
  });
});
