import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { flagPaidNotConnected } from '../../functions/billing/paid-not-connected.js';
import { resetConfig } from '../../functions/core/config.js';
import { toGsm7 } from '../../functions/core/gsm7.js';
import { Access } from '../../functions/store/access-codes.js';
import { getPayment } from '../../functions/store/payments.js';
import { hotspotOf } from '../support/hotspots.js';
import {
  call,
  login,
  loginAs,
  newMsisdn,
  smsTexts as smsTo,
  tokenFor,
  useLocalServer,
} from '../support/http.js';

/**
 * "Payé, pas connecté" on DynamoDB Local through the local server: a completed payment whose
 * code had no login 15 minutes later is flagged once (parallel runs of the job included), shown
 * to its reseller only, and its code texted again at most 3 times (parallel resends included).
 */
const server = useLocalServer();
const api = (method: string, path: string, options?: Parameters<typeof call>[3]) =>
  call(server.url(), method, path, options);
const forfait = SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number];

/** A payment completed through the sandbox aggregator's page: its id, code and buyer. */
async function paidThroughSandbox(nasId: string) {
  const msisdn = newMsisdn();
  const subscriber = await login(server.url(), msisdn);
  const initiated = await api('POST', '/api/v1/payments/initiate', {
    token: subscriber,
    body: { forfait_id: forfait.id, provider: 'orange_money', nas_id: nasId },
  });
  expect(initiated.status).toBe(201);
  const { payment_url, transaction_id } = initiated.body as { payment_url: string; transaction_id: string };
  const html = await (await fetch(payment_url)).text();
  const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
  const paid = await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);
  const payment = await getPayment(transaction_id);
  expect(payment?.status).toBe('completed');
  return {
    id: transaction_id,
    code: payment?.access_code as string,
    msisdn,
    completedAt: payment?.completed_at as string,
  };
}

describe('paid, never connected', () => {
  it('flags a completed payment whose code had no login 15 minutes later, once, and not one whose code was used', async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    const nasId = await hotspotOf(reseller.resellerId, 'access_unused');
    const unused = await paidThroughSandbox(nasId);
    const usedOne = await paidThroughSandbox(nasId);
    // The second buyer logged in (what a RADIUS login writes on the code).
    await Access.update({ code: usedOne.code }, { set: { last_login_at: new Date().toISOString() } });

    // 14 minutes after: too early for either.
    const early = await flagPaidNotConnected(Date.parse(unused.completedAt) + 14 * 60_000);
    expect((await getPayment(unused.id))?.unused_flagged_at).toBeUndefined();
    expect(early.flagged).toBe(0);

    // 16 minutes after, three runs at once (overlapping schedules): flagged once in all.
    const at = Date.parse(usedOne.completedAt) + 16 * 60_000;
    const runs = await Promise.all([
      flagPaidNotConnected(at),
      flagPaidNotConnected(at),
      flagPaidNotConnected(at),
    ]);
    expect((await getPayment(unused.id))?.unused_flagged_at).toBeDefined();
    expect((await getPayment(usedOne.id))?.unused_flagged_at).toBeUndefined();
    expect(runs.every((r) => r.completed >= 2)).toBe(true);
    // Other test files complete payments in the same table: count only ours through the list.
    const list = await api('GET', `/api/v1/payments/unused?reseller_id=${reseller.resellerId}`, {
      token: reseller.token,
    });
    expect(list.status).toBe(200);
    const items = (list.body as { items: Record<string, unknown>[] }).items;
    expect(items).toEqual([
      expect.objectContaining({
        payment_id: unused.id,
        access_code: unused.code,
        msisdn: unused.msisdn,
        nas_id: nasId,
        amount_fcfa: forfait.price_fcfa,
        paid_not_connected: true,
        code_resends: 0,
        resends_left: 3,
      }),
    ]);
    const again = await flagPaidNotConnected(at + 5 * 60_000);
    expect((await api('GET', '/api/v1/payments/unused', { token: reseller.token })).body).toEqual(list.body);
    expect(again.flagged).toBe(0);

    // The buyer finds the code later: still listed, no longer "not connected".
    await Access.update({ code: unused.code }, { set: { last_login_at: new Date().toISOString() } });
    const later = await api('GET', '/api/v1/payments/unused', { token: reseller.token });
    expect((later.body as { items: { paid_not_connected: boolean }[] }).items[0]?.paid_not_connected).toBe(
      false,
    );
  }, 60_000);

  it('shows a reseller its own flags only', async () => {
    const other = await loginAs(server.url(), 'reseller');
    const mine = await api('GET', '/api/v1/payments/unused', { token: other.token });
    expect(mine.body).toEqual({ items: [] });
    const someoneElse = await api('GET', `/api/v1/payments/unused?reseller_id=${crypto.randomUUID()}`, {
      token: other.token,
    });
    expect(someoneElse.status).toBe(403);
    const admin = await tokenFor('admin');
    const noReseller = await api('GET', '/api/v1/payments/unused', { token: admin });
    expect(noReseller.status).toBe(400);
  });

  it('texts the code again, GSM-7, at most 3 times even when asked 6 times at once; owner or admin only', async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    const nasId = await hotspotOf(reseller.resellerId, 'access_resend');
    const paid = await paidThroughSandbox(nasId);
    const before = smsTo(paid.msisdn).length;

    const stranger = await tokenFor('reseller', { resellerId: crypto.randomUUID() });
    expect((await api('POST', `/api/v1/payments/${paid.id}/resend-code`, { token: stranger })).status).toBe(
      404,
    );
    const subscriber = await tokenFor('subscriber');
    expect((await api('POST', `/api/v1/payments/${paid.id}/resend-code`, { token: subscriber })).status).toBe(
      403,
    );
    expect(smsTo(paid.msisdn).length).toBe(before);

    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api('POST', `/api/v1/payments/${paid.id}/resend-code`, { token: reseller.token }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)?.body as { error?: { code: string } } | undefined;
    expect(refused?.error?.code).toBe('ERR_RATE_LIMITED');
    const sent = smsTo(paid.msisdn).slice(before);
    expect(sent).toHaveLength(3);
    for (const message of sent) {
      // The code grouped by four for reading it out.
      expect(message.replace(/ /g, '')).toContain(paid.code);
      expect(toGsm7(message)).toBe(message);
    }
    expect((await getPayment(paid.id))?.code_resends).toBe(3);
    const admin = await tokenFor('admin');
    expect((await api('POST', `/api/v1/payments/${paid.id}/resend-code`, { token: admin })).status).toBe(429);
  }, 60_000);

  it("L3 (issue 40): past its reseller's hourly SMS budget, a resend is 429 ERR_RATE_LIMITED with Retry-After, texts nothing and spends none of the payment's 3", async () => {
    const reseller = await loginAs(server.url(), 'reseller');
    const paid = await paidThroughSandbox(await hotspotOf(reseller.resellerId, 'access_resend'));
    const before = smsTo(paid.msisdn).length;
    process.env.RESELLER_SMS_PER_HOUR = '0';
    resetConfig();
    try {
      const refused = await api('POST', `/api/v1/payments/${paid.id}/resend-code`, { token: reseller.token });
      expect(refused).toMatchObject({ status: 429, body: { error: { code: 'ERR_RATE_LIMITED' } } });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      delete process.env.RESELLER_SMS_PER_HOUR;
      resetConfig();
    }
    expect(smsTo(paid.msisdn)).toHaveLength(before);
    expect((await getPayment(paid.id))?.code_resends ?? 0).toBe(0);
    expect(
      (await api('POST', `/api/v1/payments/${paid.id}/resend-code`, { token: reseller.token })).status,
    ).toBe(200);
  }, 60_000);

  it('answers 404 to an unknown payment and 400 to a malformed id, texting nothing', async () => {
    const admin = await tokenFor('admin');
    expect(
      (await api('POST', `/api/v1/payments/${crypto.randomUUID()}/resend-code`, { token: admin })).status,
    ).toBe(404);
    expect((await api('POST', '/api/v1/payments/not-a-uuid/resend-code', { token: admin })).status).toBe(400);
  });
});
