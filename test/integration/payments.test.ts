import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { handleWebhook, initiatePayment, monthOf } from '../../functions/billing/payments.js';
import { clock } from '../../functions/core/clock.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { AppError } from '../../functions/core/errors.js';
import { listEntitlements } from '../../functions/store/entitlements.js';
import { createForfait, updateForfait } from '../../functions/store/forfaits.js';
import { getPayment } from '../../functions/store/payments.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { useTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';

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
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => handleWebhook(e)));
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'unchanged')).toHaveLength(19);
    expect((await getPayment(id))?.status).toBe('completed');
    const revenue = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    expect(revenue).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 1 });
    const ents = await listEntitlements(subscriberId);
    expect(ents).toHaveLength(1);
    expect(ents[0]).toMatchObject({ forfait_id: forfait.id, data_limit_mb: forfait.data_limit_mb });
    const hours = (Date.parse(ents[0]?.expires_at ?? '') - Date.parse(ents[0]?.starts_at ?? '')) / 3600_000;
    expect(hours).toBe(forfait.duration_hours);
  });

  it('counts a payment once when two different events complete it', async () => {
    const { id, resellerId } = await givenPayment();
    const outcomes = await Promise.all([handleWebhook(event(id)), handleWebhook(event(id))]);
    expect(outcomes.sort()).toEqual(['applied', 'unchanged']);
    const revenue = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    expect(revenue).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 1 });
  });

  it('keeps a completed payment completed when a failure arrives afterwards', async () => {
    const { id } = await givenPayment();
    await handleWebhook(event(id));
    expect(await handleWebhook(event(id, 'failed'))).toBe('unchanged');
    expect((await getPayment(id))?.status).toBe('completed');
  });

  it('fails a pending payment, and a later completion does not revive it', async () => {
    const { id, resellerId } = await givenPayment();
    expect(await handleWebhook(event(id, 'failed'))).toBe('applied');
    expect(await handleWebhook(event(id))).toBe('unchanged');
    expect((await getPayment(id))?.status).toBe('failed');
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).total_fcfa).toBe(0);
  });

  it('refuses an amount mismatch with 409, records it and leaves the payment pending', async () => {
    const { id, resellerId } = await givenPayment();
    const error = await handleWebhook(event(id, 'completed', { amount_fcfa: 1 })).catch(codeOf);
    expect(error).toBe('ERR_CONFLICT');
    const p = await getPayment(id);
    expect(p?.status).toBe('pending');
    expect(p?.refusal_count).toBe(1);
    expect(p?.refusals?.[0]).toMatchObject({ reason: 'amount_mismatch', amount_fcfa: 1 });
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).sessions_count).toBe(0);
  });

  it('refuses a provider mismatch with 409 too', async () => {
    const { id } = await givenPayment();
    const error = await handleWebhook(event(id, 'completed', { provider: 'wave' })).catch(codeOf);
    expect(error).toBe('ERR_CONFLICT');
    expect((await getPayment(id))?.refusals?.[0]?.reason).toBe('provider_mismatch');
  });

  it('answers 404 for an unknown transaction', async () => {
    expect(await handleWebhook(event(randomUUID())).catch(codeOf)).toBe('ERR_NOT_FOUND');
  });

  it('honours a completion that arrives after the 30 minutes', async () => {
    const { id } = await givenPayment();
    const start = clock.now();
    clock.set(() => start + 45 * 60_000);
    try {
      expect(await handleWebhook(event(id))).toBe('applied');
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
    await handleWebhook({
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
