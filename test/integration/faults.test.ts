import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { initiatePayment } from '../../functions/billing/payments/initiate.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { getAccount } from '../../functions/store/accounts.js';
import { getPayment } from '../../functions/store/payments.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue, UNATTRIBUTED } from '../../functions/store/revenue.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { call, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const requestOtp = (msisdn: string) =>
  call(server.url(), 'POST', '/api/v1/auth/otp/request', { body: { msisdn } });

const rateItem = async (msisdn: string) =>
  (
    await ddb().send(
      new GetCommand({ TableName: tableName(), Key: { pk: `RATE#OTP#${msisdn}`, sk: 'RATE' } }),
    )
  ).Item;

describe('DynamoDB failing during an OTP request', () => {
  afterEach(() => probeDdb().clearFaults());

  it.each([
    [1, 'the read'],
    [2, 'the transaction'],
  ])('answers 503 when call %i (%s) is throttled, and leaves no slot, account or code behind', async (n) => {
    const msisdn = newMsisdn();
    probeDdb().failOn(n);
    const res = await requestOtp(msisdn);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({ error: { code: 'ERR_UNAVAILABLE', message: expect.any(String) } });
    expect(await rateItem(msisdn)).toBeUndefined();
    expect(await getAccount(msisdn)).toBeUndefined();
    // And the number still has its three requests.
    for (let i = 0; i < 3; i++) expect((await requestOtp(msisdn)).status).toBe(200);
  });

  it('answers a bare 500 with no internals when DynamoDB fails otherwise', async () => {
    const error = new Error('ValidationException: One or more parameter values were invalid: secret detail');
    error.name = 'ValidationException';
    probeDdb().failOn(1, { error });
    const res = await requestOtp(newMsisdn());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'ERR_INTERNAL', message: 'Internal error' } });
  });

  it('counts exactly two DynamoDB round trips for a request', async () => {
    const probe = probeDdb();
    probe.reset();
    expect((await requestOtp(newMsisdn())).status).toBe(200);
    expect(probe.calls).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand']);
  });
});

describe('DynamoDB failing during payment completion', () => {
  afterEach(() => probeDdb().clearFaults());

  it('leaves the payment pending and the revenue untouched, and a redelivery then completes it', async () => {
    const forfait = SEED_FORFAITS[2] as { id: string; price_fcfa: number };
    const { transaction_id } = await initiatePayment({
      subscriberId: randomUUID(),
      forfaitId: forfait.id,
      provider: 'wave',
    });
    const event = {
      event_id: randomUUID(),
      transaction_id,
      status: 'completed' as const,
      amount_fcfa: forfait.price_fcfa,
      provider: 'wave',
    };
    const month = new Date().toISOString().slice(0, 7);
    const before = await getMonthlyRevenue(UNATTRIBUTED, month);
    probeDdb().failOn(1, { only: ['TransactWriteItemsCommand'] });
    const res = await webhook(event);
    expect(res.status).toBe(503);
    expect((await getPayment(transaction_id))?.status).toBe('pending');
    expect(await getMonthlyRevenue(UNATTRIBUTED, month)).toEqual(before);

    // The aggregator delivers again (at least once): now it completes, counted once.
    expect((await webhook(event)).status).toBe(200);
    expect((await getPayment(transaction_id))?.status).toBe('completed');
    const after = await getMonthlyRevenue(UNATTRIBUTED, month);
    expect(after.total_fcfa - before.total_fcfa).toBe(forfait.price_fcfa);
    expect((await getPayment(transaction_id))?.access_code).toMatch(/^[A-Z2-9]{10}$/);
  });

  const webhook = (body: unknown) =>
    call(server.url(), 'POST', '/api/v1/payments/webhook', {
      body,
      headers: { 'x-provider-secret': process.env.WEBHOOK_SECRET as string },
    });
});

describe('DynamoDB failing during voucher generation', () => {
  afterEach(() => probeDdb().clearFaults());

  it('answers 503 and takes back the part of the batch already written', async () => {
    const resellerId = randomUUID();
    // Vouchers are made for a reseller the platform knows.
    await recordReseller({ resellerId, name: 'Chez Awa' });
    const admin = await tokenFor('admin');
    // 250 vouchers are six transactions (49 a time): the second one is throttled.
    probeDdb().failOn(2, { only: ['TransactWriteItemsCommand'] });
    const res = await call(server.url(), 'POST', '/api/v1/vouchers/generate', {
      token: admin,
      body: { n: 250, forfait_id: (SEED_FORFAITS[0] as { id: string }).id, reseller_id: resellerId },
    });
    expect(res.status).toBe(503);
    const listed = await call<{ total: number }>(
      server.url(),
      'GET',
      `/api/v1/vouchers?reseller_id=${resellerId}`,
      {
        token: admin,
      },
    );
    expect(listed.body.total).toBe(0);
  });
});
