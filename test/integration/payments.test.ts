import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { initiatePayment } from '../../functions/billing/payments/initiate.js';
import { clock, monthOf } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { AppError } from '../../functions/core/errors.js';
import { createForfait, updateForfait } from '../../functions/store/forfaits.js';
import { getPayment } from '../../functions/store/payments.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { useTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { listEntitlements } from '../support/store-reads.js';
import { webhookSettlement } from '../support/webhook.js';

useTestTable({ seed: true });

const forfait = SEED_FORFAITS[2] as (typeof SEED_FORFAITS)[number];

async function givenNas(resellerId: string): Promise<string> {
  const nasId = `access_test_${randomUUID().slice(0, 8)}`;
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { pk: `NAS#${nasId}`, sk: 'NAS', entity: 'nas', nas_id: nasId, reseller_id: resellerId },
    }),
  );
  return nasId;
}

async function givenPayment(resellerId = randomUUID()) {
  const subscriberId = randomUUID();
  const nasId = await givenNas(resellerId);
  const { transaction_id } = await initiatePayment({
    subscriberId,
    forfaitId: forfait.id,
    provider: 'orange_money',
    nasId,
  });
  return { id: transaction_id, subscriberId, resellerId };
}

const event = (id: string, status: 'completed' | 'failed' = 'completed', extra: object = {}) => ({
  event_id: randomUUID(),
  transaction_id: id,
  status,
  amount_fcfa: forfait.price_fcfa,
  provider: 'orange_money',
  ...extra,
});

const codeOf = (e: unknown) => (e instanceof AppError ? e.code : String(e));

describe('payment initiation', () => {
  it('writes a pending payment priced from the forfait, expiring in 30 minutes, for the NAS reseller', async () => {
    const before = clock.now();
    const { id, resellerId } = await givenPayment();
    const p = await getPayment(id);
    expect(p).toMatchObject({ status: 'pending', amount_fcfa: forfait.price_fcfa, reseller_id: resellerId });
    const ttl = Date.parse(p?.expires_at ?? '') - before;
    expect(ttl).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
    expect(ttl).toBeLessThanOrEqual(30 * 60_000 + 5000);
    expect(p?.payment_url).toMatch(new RegExp(`/sandbox/pay/${id}$`));
  });

  it('gives two parallel requests with one Idempotency-Key the same payment, and writes only one', async () => {
    const subscriberId = randomUUID();
    const input = {
      subscriberId,
      forfaitId: forfait.id,
      provider: 'wave' as const,
      idempotencyKey: `key-${randomUUID()}`,
    };
    const results = await Promise.all(Array.from({ length: 5 }, () => initiatePayment(input)));
    const ids = new Set(results.map((r) => r.transaction_id));
    expect(ids.size).toBe(1);
    expect(new Set(results.map((r) => r.payment_url)).size).toBe(1);
    const again = await initiatePayment(input);
    expect(again.transaction_id).toBe(results[0]?.transaction_id);
  });

  it('refuses a repeated Idempotency-Key with another forfait, provider or NAS id (409 ERR_IDEMPOTENCY_MISMATCH); the original request still gets its payment', async () => {
    const subscriberId = randomUUID();
    const key = `key-${randomUUID()}`;
    const first = await initiatePayment({
      subscriberId,
      forfaitId: forfait.id,
      provider: 'wave',
      idempotencyKey: key,
    });
    const nasId = await givenNas(randomUUID());
    for (const changed of [
      { forfaitId: (SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number]).id },
      { provider: 'orange_money' as const },
      { nasId },
    ]) {
      const error = await initiatePayment({
        subscriberId,
        forfaitId: forfait.id,
        provider: 'wave',
        idempotencyKey: key,
        ...changed,
      }).catch(codeOf);
      expect(error).toBe('ERR_IDEMPOTENCY_MISMATCH');
    }
    const again = await initiatePayment({
      subscriberId,
      forfaitId: forfait.id,
      provider: 'wave',
      idempotencyKey: key,
    });
    expect(again).toEqual(first);
    // The key is the subscriber's own: another subscriber's same key is another payment.
    const other = await initiatePayment({
      subscriberId: randomUUID(),
      forfaitId: forfait.id,
      provider: 'orange_money',
      idempotencyKey: key,
    });
    expect(other.transaction_id).not.toBe(first.transaction_id);
  });

  it('refuses an unknown NAS id and an unknown forfait with 404', async () => {
    await expect(
      initiatePayment({ subscriberId: randomUUID(), forfaitId: forfait.id, provider: 'wave', nasId: 'nope' }),
    ).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    await expect(
      initiatePayment({ subscriberId: randomUUID(), forfaitId: randomUUID(), provider: 'wave' }),
    ).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
  });
});

describe('webhook deliveries', () => {
  it('completes once and counts the aggregate once for 20 parallel deliveries of one event', async () => {
    const { id, subscriberId, resellerId } = await givenPayment();
    const e = event(id);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => webhookSettlement(e)));
    expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
    // The others found the payment completed, or this very event applied already.
    expect(outcomes.filter((o) => o === 'unchanged' || o === 'replayed')).toHaveLength(19);
    expect((await getPayment(id))?.status).toBe('completed');
    const revenue = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    // Sessions are counted by RADIUS accounting (a session's Start), not by a sale.
    expect(revenue).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 0 });
    const ents = await listEntitlements(subscriberId);
    expect(ents).toHaveLength(1);
    expect(ents[0]).toMatchObject({ forfait_id: forfait.id, data_limit_mb: forfait.data_limit_mb });
    const hours = (Date.parse(ents[0]?.expires_at ?? '') - Date.parse(ents[0]?.starts_at ?? '')) / 3600_000;
    expect(hours).toBe(forfait.duration_hours);
  });

  it('counts a payment once when two different events complete it', async () => {
    const { id, resellerId } = await givenPayment();
    const outcomes = await Promise.all([webhookSettlement(event(id)), webhookSettlement(event(id))]);
    expect(outcomes.sort()).toEqual(['completed', 'unchanged']);
    const revenue = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    // Sessions are counted by RADIUS accounting (a session's Start), not by a sale.
    expect(revenue).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 0 });
  });

  it('keeps a completed payment completed when a failure arrives afterwards', async () => {
    const { id } = await givenPayment();
    await webhookSettlement(event(id));
    expect(await webhookSettlement(event(id, 'failed'))).toBe('unchanged');
    expect((await getPayment(id))?.status).toBe('completed');
  });

  it('fails a pending payment, and a later completion does not revive it', async () => {
    const { id, resellerId } = await givenPayment();
    expect(await webhookSettlement(event(id, 'failed'))).toBe('failed');
    expect(await webhookSettlement(event(id))).toBe('unchanged');
    expect((await getPayment(id))?.status).toBe('failed');
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).total_fcfa).toBe(0);
  });

  it('refuses an amount mismatch with 409, records it and leaves the payment pending', async () => {
    const { id, resellerId } = await givenPayment();
    const error = await webhookSettlement(event(id, 'completed', { amount_fcfa: 1 })).catch(codeOf);
    expect(error).toBe('ERR_CONFLICT');
    const p = await getPayment(id);
    expect(p?.status).toBe('pending');
    expect(p?.refusal_count).toBe(1);
    expect(p?.refusals?.[0]).toMatchObject({ reason: 'amount_mismatch', amount_fcfa: 1 });
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).sessions_count).toBe(0);
  });

  it('refuses a provider mismatch with 409 too', async () => {
    const { id } = await givenPayment();
    const error = await webhookSettlement(event(id, 'completed', { provider: 'wave' })).catch(codeOf);
    expect(error).toBe('ERR_CONFLICT');
    expect((await getPayment(id))?.refusals?.[0]?.reason).toBe('provider_mismatch');
  });

  it('keeps the first refusals in full and only counts the rest, so the payment item stays small', async () => {
    const { id } = await givenPayment();
    // The payment keeps the first 20 refusals and counts them all.
    const kept = 20;
    for (let i = 0; i < kept + 5; i++) {
      expect(await webhookSettlement(event(id, 'completed', { amount_fcfa: 1 })).catch(codeOf)).toBe(
        'ERR_CONFLICT',
      );
    }
    const p = await getPayment(id);
    expect(p?.refusal_count).toBe(kept + 5);
    expect(p?.refusals).toHaveLength(kept);
    expect(p?.status).toBe('pending');
    expect(await webhookSettlement(event(id))).toBe('completed');
  });

  it('answers 404 for an unknown transaction', async () => {
    expect(await webhookSettlement(event(randomUUID())).catch(codeOf)).toBe('ERR_NOT_FOUND');
  });

  it('honours a completion that arrives after the 30 minutes', async () => {
    const { id } = await givenPayment();
    const start = clock.now();
    clock.set(() => start + 45 * 60_000);
    try {
      expect(await webhookSettlement(event(id))).toBe('completed');
    } finally {
      clock.reset();
    }
    expect((await getPayment(id))?.status).toBe('completed');
  });
});

describe('what a completed payment grants', () => {
  it('is the offer as sold, even if the forfait changed since, in two DynamoDB round trips', async () => {
    const id = randomUUID();
    await createForfait({
      id,
      name: 'Pass Promo',
      price_fcfa: 500,
      duration_hours: 48,
      data_limit_mb: 4096,
      cir_kbps: 1024,
      mir_kbps: 4096,
    });
    const subscriberId = randomUUID();
    const { transaction_id } = await initiatePayment({ subscriberId, forfaitId: id, provider: 'mtn_momo' });
    await updateForfait(id, { duration_hours: 1, data_limit_mb: 10 });
    const probe = probeDdb();
    probe.reset();
    await webhookSettlement({
      event_id: randomUUID(),
      transaction_id,
      status: 'completed',
      amount_fcfa: 500,
      provider: 'mtn_momo',
    });
    expect(probe.calls).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
    const [ent] = await listEntitlements(subscriberId);
    expect(ent).toMatchObject({ forfait_id: id, data_limit_mb: 4096 });
    expect(Date.parse(ent?.expires_at as string) - Date.parse(ent?.starts_at as string)).toBe(48 * 3600_000);
  });
});

describe('completions confirmed with the aggregator (http mode)', () => {
  const answer =
    (status: string, amount = forfait.price_fcfa, provider = 'orange_money') =>
    () =>
      new Response(JSON.stringify({ status, amount_fcfa: amount, provider }), { status: 200 });
  const empty = (status: number) => () => new Response('', { status });

  /**
   * Switches the functions to the http adapter, whose fetch opens payments and answers `reply`
   * to status reads. Only the status reads are recorded in the mock.
   */
  function httpMode(reply: () => Response, extra: Record<string, string> = {}) {
    Object.assign(process.env, {
      AGGREGATOR_MODE: 'http',
      AGGREGATOR_BASE_URL: 'https://aggregator.example',
      AGGREGATOR_API_KEY: 'test-aggregator-key',
      AGGREGATOR_RETRY_BASE_MS: '1',
      ...extra,
    });
    resetConfig();
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => reply());
    vi.stubGlobal('fetch', async (url: string, init?: RequestInit) =>
      init?.method === 'POST'
        ? new Response(JSON.stringify({ payment_url: 'https://aggregator.example/pay/1' }), { status: 201 })
        : fetchMock(url, init),
    );
    return fetchMock;
  }

  function sandboxMode() {
    for (const k of [
      'AGGREGATOR_MODE',
      'AGGREGATOR_BASE_URL',
      'AGGREGATOR_RETRY_BASE_MS',
      'AGGREGATOR_CONFIRM_WEBHOOK',
    ])
      delete process.env[k];
    resetConfig();
    vi.unstubAllGlobals();
  }

  /** A payment opened through the http adapter: it is confirmed with that adapter's status API. */
  async function givenSandboxPayment() {
    httpMode(answer('pending'));
    return givenPayment();
  }

  afterEach(sandboxMode);

  it('completes a payment the status API shows completed for the same amount and provider', async () => {
    const { id, resellerId } = await givenSandboxPayment();
    const fetchMock = httpMode(answer('completed'));
    expect(await webhookSettlement(event(id))).toBe('completed');
    expect(String(fetchMock.mock.calls[0]?.[0])).toBe(`https://aggregator.example/payments/${id}`);
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).total_fcfa).toBeGreaterThan(0);
  });

  it.each([
    ['failed', answer('failed'), 'not_confirmed'],
    ['unknown to it', empty(404), 'not_confirmed'],
    ['completed for another amount', answer('completed', 1), 'confirmation_mismatch'],
    [
      'completed with another provider',
      answer('completed', forfait.price_fcfa, 'wave'),
      'confirmation_mismatch',
    ],
  ])('refuses (409, recorded) a completion the status API shows %s', async (_name, reply, reason) => {
    const { id, resellerId } = await givenSandboxPayment();
    httpMode(reply);
    expect(await webhookSettlement(event(id)).catch(codeOf)).toBe('ERR_CONFLICT');
    const p = await getPayment(id);
    expect(p?.status).toBe('pending');
    expect(p?.refusals?.[0]?.reason).toBe(reason);
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).sessions_count).toBe(0);
  });

  it('answers 503 while the status API shows it pending or cannot be reached; the redelivery completes it', async () => {
    const { id } = await givenSandboxPayment();
    const e = event(id);
    httpMode(answer('pending'));
    expect(await webhookSettlement(e).catch(codeOf)).toBe('ERR_UNAVAILABLE');
    httpMode(empty(503));
    expect(await webhookSettlement(e).catch(codeOf)).toBe('ERR_UNAVAILABLE');
    expect((await getPayment(id))?.status).toBe('pending');
    httpMode(answer('completed'));
    expect(await webhookSettlement(e)).toBe('completed');
    expect((await getPayment(id))?.status).toBe('completed');
  });

  it('does not ask for a failure', async () => {
    const { id } = await givenSandboxPayment();
    const fetchMock = httpMode(answer('completed'));
    expect(await webhookSettlement(event(id, 'failed'))).toBe('failed');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('does not ask when AGGREGATOR_CONFIRM_WEBHOOK=false', async () => {
    const { id } = await givenSandboxPayment();
    const fetchMock = httpMode(answer('failed'), { AGGREGATOR_CONFIRM_WEBHOOK: 'false' });
    expect(await webhookSettlement(event(id))).toBe('completed');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
