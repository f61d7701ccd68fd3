import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { getAccount } from '../../functions/store/accounts.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { call, newMsisdn, useLocalServer } from '../support/http.js';

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
