import { readFileSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { OTP } from '../../functions/auth/otp.js';
import { requestOtp, verifyOtp } from '../../functions/auth/service.js';
import { verifySession } from '../../functions/auth/tokens.js';
import { clock } from '../../functions/core/clock.js';
import { ddb } from '../../functions/core/ddb.js';
import { AppError } from '../../functions/core/errors.js';
import { getAccount, upsertOperator } from '../../functions/store/accounts.js';
import { readForVerify } from '../../functions/store/otp.js';
import { useTestTable } from '../support/db.js';
import { lastOtp, newMsisdn } from '../support/http.js';

useTestTable();

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('OTP request', () => {
  afterEach(() => clock.reset());

  it('gives exactly three codes to ten parallel requests for one MSISDN', async () => {
    const msisdn = newMsisdn();
    const results = await Promise.all(Array.from({ length: 10 }, () => codeOf(requestOtp(msisdn))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(results.filter((r) => r === 'ERR_RATE_LIMITED')).toHaveLength(7);
  });

  it('says when to retry and lets the number in again once the window has passed', async () => {
    const msisdn = newMsisdn();
    const start = Date.now();
    clock.set(() => start);
    for (let i = 0; i < 3; i++) await requestOtp(msisdn);
    const refused = await requestOtp(msisdn).catch((e: AppError) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).headers?.['Retry-After']).toBe('60');
    clock.set(() => start + 60_001);
    await expect(requestOtp(msisdn)).resolves.toHaveProperty('otp_token');
  });

  it('refuses a malformed or unassigned number with ERR_MSISDN_INVALID', async () => {
    for (const bad of ['0712345678', '+12', '+225abc', '+2251234567890123456', '+22599999999']) {
      expect(await codeOf(requestOtp(bad))).toBe('ERR_MSISDN_INVALID');
    }
  });

  it('binds the code to the account UUID and stores only a keyed hash of it', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    const account = await getAccount(msisdn);
    const record = await readForVerify(msisdn);
    expect(record?.accountId).toBe(account?.id);
    expect(record?.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).not.toContain(code);
    // The hash is of this account's UUID: the same code under another UUID does not match.
    const { hashCode } = await import('../../functions/auth/otp.js');
    const pepper = process.env.OTP_PEPPER as string;
    expect(hashCode(pepper, account?.id as string, record?.otpToken as string, code)).toBe(record?.codeHash);
    expect(
      hashCode(pepper, '00000000-0000-4000-8000-000000000000', record?.otpToken as string, code),
    ).not.toBe(record?.codeHash);
  });

  it('writes the SMS to the outbox as {to, message, sent_at}', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    const lines = readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
      .trim()
      .split('\n');
    const last = JSON.parse(lines.at(-1) as string);
    expect(Object.keys(last).sort()).toEqual(['message', 'sent_at', 'to']);
    expect(last.to).toBe(msisdn);
    expect(last.message).toMatch(/\b\d{6}\b/);
  });
});

describe('OTP verify', () => {
  afterEach(() => clock.reset());

  it('answers a session token for the right code, carrying the account and role', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    const out = await verifyOtp(msisdn, lastOtp(msisdn));
    expect(out.expires_in).toBe(900);
    expect(out.subscriber_ref).toBe(`SUB-${msisdn.slice(1)}`);
    const claims = await verifySession(out.session_token);
    expect(claims.sub).toBe((await getAccount(msisdn))?.id);
    expect(claims.role).toBe('subscriber');
  });

  it('puts the role and reseller id of an operator account in its token', async () => {
    const msisdn = newMsisdn();
    const resellerId = '0b8f6a3e-3c1d-4c55-9f1a-2f4b7d9e8a11';
    await upsertOperator({ msisdn, role: 'reseller', resellerId });
    await requestOtp(msisdn);
    const claims = await verifySession((await verifyOtp(msisdn, lastOtp(msisdn))).session_token);
    expect(claims).toMatchObject({ role: 'reseller', resellerId });
  });

  it('lets exactly one of ten parallel verifies of one code through', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => codeOf(verifyOtp(msisdn, code, otp_token))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'ERR_OTP_INVALID')).toHaveLength(9);
  });

  it('refuses a code used once already', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    await verifyOtp(msisdn, code);
    expect(await codeOf(verifyOtp(msisdn, code))).toBe('ERR_OTP_INVALID');
  });

  it('answers ERR_OTP_EXPIRED for the right code after 300 seconds, and accepts it just before', async () => {
    const msisdn = newMsisdn();
    const start = Date.now();
    clock.set(() => start);
    await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    clock.set(() => start + OTP.lifetimeMs);
    expect(await codeOf(verifyOtp(msisdn, code))).toBe('ERR_OTP_EXPIRED');
    clock.set(() => start + OTP.lifetimeMs - 1);
    expect(await codeOf(verifyOtp(msisdn, code))).toBe('ok');
  });

  // Wrong guesses count against the code only with the request's otp_token (docs/decisions.md, Hardening).
  it('burns the code after five wrong tries, even for the right code afterwards', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    for (let i = 0; i < 5; i++)
      expect(await codeOf(verifyOtp(msisdn, wrongCode(code), otp_token))).toBe('ERR_OTP_INVALID');
    expect(await codeOf(verifyOtp(msisdn, code, otp_token))).toBe('ERR_OTP_INVALID');
  });

  it('starts a new count of guesses with a new code: wrong guesses burn only the code they were made at', async () => {
    const msisdn = newMsisdn();
    const first = await requestOtp(msisdn);
    for (let i = 0; i < 4; i++)
      expect(await codeOf(verifyOtp(msisdn, wrongCode(lastOtp(msisdn)), first.otp_token))).toBe(
        'ERR_OTP_INVALID',
      );
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    for (let i = 0; i < 4; i++) await codeOf(verifyOtp(msisdn, wrongCode(code), otp_token));
    expect(await codeOf(verifyOtp(msisdn, code, otp_token))).toBe('ok');
  });

  it('M2: five wrong guesses lock nothing out: the next code is sent at once, compared once for 15 minutes', async () => {
    const msisdn = newMsisdn();
    const start = Date.now();
    clock.set(() => start);
    const { otp_token } = await requestOtp(msisdn);
    for (let i = 0; i < 5; i++) await codeOf(verifyOtp(msisdn, wrongCode(lastOtp(msisdn)), otp_token));
    // The owner asks again within the same minute: a code is sent, and the right one logs in.
    const again = await requestOtp(msisdn);
    expect(await codeOf(verifyOtp(msisdn, lastOtp(msisdn), again.otp_token))).toBe('ok');
    // Soon after a burn, a code gets one comparison: a guesser gets one guess per SMS.
    clock.set(() => start + 61_000);
    const third = await requestOtp(msisdn);
    for (let i = 0; i < 5; i++) await codeOf(verifyOtp(msisdn, wrongCode(lastOtp(msisdn)), third.otp_token));
    const fourth = await requestOtp(msisdn);
    const right = lastOtp(msisdn);
    expect(await codeOf(verifyOtp(msisdn, wrongCode(right), fourth.otp_token))).toBe('ERR_OTP_INVALID');
    expect(await codeOf(verifyOtp(msisdn, right, fourth.otp_token))).toBe('ERR_OTP_INVALID');
    // Past 15 minutes, five again.
    clock.set(() => start + OTP.afterBurnMs + 122_000);
    const fifth = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    for (let i = 0; i < 4; i++) await codeOf(verifyOtp(msisdn, wrongCode(code), fifth.otp_token));
    expect(await codeOf(verifyOtp(msisdn, code, fifth.otp_token))).toBe('ok');
  });

  it('loses none of five parallel wrong guesses: the code is burnt', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    await Promise.all(Array.from({ length: 5 }, () => codeOf(verifyOtp(msisdn, wrongCode(code), otp_token))));
    expect((await readForVerify(msisdn))?.fails).toBe(5);
    expect(await codeOf(verifyOtp(msisdn, code))).toBe('ERR_OTP_INVALID');
  });

  it('still accepts the right code after four parallel wrong guesses', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    await Promise.all(Array.from({ length: 4 }, () => codeOf(verifyOtp(msisdn, wrongCode(code), otp_token))));
    expect(await codeOf(verifyOtp(msisdn, code, otp_token))).toBe('ok');
  });

  it('answers the same error for an unknown number as for a wrong code', async () => {
    expect(await codeOf(verifyOtp(newMsisdn(), '123456'))).toBe('ERR_OTP_INVALID');
  });

  it('refuses an otp_token that is not the current one', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    expect(await codeOf(verifyOtp(msisdn, lastOtp(msisdn), '00000000-0000-4000-8000-000000000000'))).toBe(
      'ERR_OTP_INVALID',
    );
  });
});

describe('account retention', () => {
  /** The account item as stored: its TTL and first verification (never answered by the API). */
  const stored = async (msisdn: string) => {
    const { Item } = await ddb().send(
      new GetCommand({
        TableName: process.env.TABLE_NAME,
        Key: { pk: `ACCOUNT#${msisdn}`, sk: 'ACCOUNT' },
        ConsistentRead: true,
      }),
    );
    return { ttl: Item?.ttl as number | undefined, verified_at: Item?.verified_at as string | undefined };
  };
  const nowS = () => Math.floor(Date.now() / 1000);

  it('removes a subscriber an OTP request created after a day unless a code is verified; a verified one a year after its last login', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const pending = await stored(msisdn);
    expect(pending.verified_at).toBeUndefined();
    expect(Math.abs((pending.ttl ?? 0) - (nowS() + 24 * 3600))).toBeLessThan(60);

    await verifyOtp(msisdn, lastOtp(msisdn), otp_token);
    const verified = await stored(msisdn);
    expect(verified.verified_at).toMatch(/^\d{4}-/);
    expect(Math.abs((verified.ttl ?? 0) - (nowS() + 365 * 86_400))).toBeLessThan(60);

    // A later request does not shorten a verified account's life back to a day.
    await requestOtp(msisdn);
    expect((await stored(msisdn)).ttl).toBe(verified.ttl);
  });

  it('never gives an operator a TTL, even one that was an unverified subscriber before', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    expect((await stored(msisdn)).ttl).toBeDefined();
    await upsertOperator({ msisdn, role: 'admin' });
    expect((await stored(msisdn)).ttl).toBeUndefined();
    const { otp_token } = await requestOtp(msisdn);
    expect((await stored(msisdn)).ttl).toBeUndefined();
    await verifyOtp(msisdn, lastOtp(msisdn), otp_token);
    expect((await stored(msisdn)).ttl).toBeUndefined();
  });
});
