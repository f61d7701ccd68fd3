import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as otpRequestHandler } from '../../functions/auth/otp-request.js';
import { requestOtp, verifyOtp } from '../../functions/auth/service.js';
import { addressSubject } from '../../functions/auth/settings.js';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { ddb } from '../../functions/core/ddb.js';
import { AppError } from '../../functions/core/errors.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { readForVerify } from '../../functions/store/otp.js';
import { useTestTable } from '../support/db.js';
import { lastOtp, newMsisdn } from '../support/http.js';

useTestTable();

const outcome = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const from = (sourceIp: string) => ({ sourceIp });

/** Runs `fn` with some settings in the environment, then puts the environment back. */
async function withSettings<T>(settings: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  resetConfig();
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetConfig();
  }
}

let addressCounter = 0;
/** A distinct public (documentation-range) IPv4 address per call. */
const newAddress = () => {
  addressCounter += 1;
  return `198.51.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}`;
};

afterEach(() => clock.reset());

describe('OTP verify: guesses without the otp_token', () => {
  it('an attacker who never received the code cannot lock an admin out', async () => {
    const admin = newMsisdn();
    await upsertOperator({ msisdn: admin, role: 'admin' });
    const { otp_token } = await requestOtp(admin, from(newAddress()));
    const code = lastOtp(admin);

    // The attacker knows the number, not the otp_token: every guess he can make counts for nothing.
    const attacker = from(newAddress());
    for (let i = 0; i < 5; i++) {
      expect(await outcome(verifyOtp(admin, wrongCode(code), undefined, attacker))).toBe('ERR_OTP_INVALID');
    }
    expect((await readForVerify(admin))?.fails).toBe(0);
    // The admin logs in with the code and the otp_token his own request answered.
    expect(await outcome(verifyOtp(admin, code, otp_token, from(newAddress())))).toBe('ok');
    // And no lockout stands in the way of the next login.
    clock.set(() => Date.now() + 61_000);
    expect(await outcome(requestOtp(admin, from(newAddress())))).toBe('ok');
  });

  it('an attacker without the otp_token gets five guesses per number per 15 minutes, then 429 with Retry-After', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    // Twenty parallel guesses from twenty addresses: exactly five are compared.
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        outcome(verifyOtp(msisdn, wrongCode(code), undefined, from(newAddress()))),
      ),
    );
    expect(results.filter((r) => r === 'ERR_OTP_INVALID')).toHaveLength(5);
    expect(results.filter((r) => r === 'ERR_RATE_LIMITED')).toHaveLength(15);
    const refused = await verifyOtp(msisdn, code, undefined, from(newAddress())).catch((e: AppError) => e);
    expect((refused as AppError).code).toBe('ERR_RATE_LIMITED');
    expect(Number((refused as AppError).headers?.['Retry-After'])).toBeGreaterThan(800);
    // The code itself is untouched: its requester, who holds the otp_token, still logs in.
    const { otp_token } = await requestOtp(msisdn);
    expect(await outcome(verifyOtp(msisdn, lastOtp(msisdn), otp_token))).toBe('ok');
  });

  it('an attacker without the otp_token is limited per client address across numbers', async () => {
    await withSettings({ OTP_GUESSES_PER_ADDRESS_PER_HOUR: '3' }, async () => {
      const attacker = from(newAddress());
      const numbers = Array.from({ length: 5 }, () => newMsisdn());
      for (const n of numbers) await requestOtp(n);
      const results = await Promise.all(
        numbers.map((n) => outcome(verifyOtp(n, '000000', undefined, attacker))),
      );
      expect(results.filter((r) => r === 'ERR_RATE_LIMITED')).toHaveLength(2);
      // Another address is not held back by this one.
      expect(await outcome(verifyOtp(numbers[0] as string, '000000', undefined, from(newAddress())))).toBe(
        'ERR_OTP_INVALID',
      );
    });
  });

  it('a client that sends no otp_token still logs in with the right code', async () => {
    const msisdn = newMsisdn();
    await requestOtp(msisdn);
    expect(await outcome(verifyOtp(msisdn, lastOtp(msisdn), undefined, from(newAddress())))).toBe('ok');
  });
});

describe('OTP verify: guesses with the otp_token', () => {
  it('an attacker holding the otp_token gets no more than five comparisons out of parallel guesses', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);
    const results = await Promise.all(
      Array.from({ length: 30 }, () => outcome(verifyOtp(msisdn, wrongCode(code), otp_token))),
    );
    expect(results.every((r) => r === 'ERR_OTP_INVALID')).toBe(true);
    // Each guess is counted before it is compared: five were, the code is burnt.
    expect((await readForVerify(msisdn))?.fails).toBe(5);
    expect(await outcome(verifyOtp(msisdn, code, otp_token))).toBe('ERR_OTP_INVALID');
  });

  it("M2: five wrong guesses with the otp_token burn that code only: the number's owner asks for a new one and logs in", async () => {
    // An operator's number: someone else asks for a code for it (the answer gives the otp_token)...
    const owner = newMsisdn();
    await upsertOperator({ msisdn: owner, role: 'reseller', resellerId: randomUUID() });
    const stranger = from(newAddress());
    const theirs = await requestOtp(owner, stranger);
    const burnt = lastOtp(owner);
    // ...and makes five wrong guesses with that token: the code is burnt, even the right one refused.
    for (let i = 0; i < 5; i++)
      expect(await outcome(verifyOtp(owner, wrongCode(burnt), theirs.otp_token, stranger))).toBe(
        'ERR_OTP_INVALID',
      );
    expect(await outcome(verifyOtp(owner, burnt, theirs.otp_token, stranger))).toBe('ERR_OTP_INVALID');
    // The owner, at once: a new code is sent (no 429), and it logs in.
    const phone = from(newAddress());
    const mine = await requestOtp(owner, phone);
    expect(await outcome(verifyOtp(owner, lastOtp(owner), mine.otp_token, phone))).toBe('ok');
  });

  it('a wrong guess racing a successful verify does not count against the consumed code', async () => {
    const msisdn = newMsisdn();
    const { otp_token } = await requestOtp(msisdn);
    const code = lastOtp(msisdn);

    // Five stale guesses read the code while it is still unused, then wait...
    const gate = pauseAfterReads(5);
    const stale = Array.from({ length: 5 }, () => outcome(verifyOtp(msisdn, wrongCode(code), otp_token)));
    await gate.allPaused;
    // ...while the owner verifies the right code...
    expect(await outcome(verifyOtp(msisdn, code, otp_token))).toBe('ok');
    // ...and only then go on.
    gate.release();
    expect(await Promise.all(stale)).toEqual(Array(5).fill('ERR_OTP_INVALID'));
    expect((await readForVerify(msisdn))?.fails).toBe(0);
    // No lockout: the next code is sent.
    clock.set(() => Date.now() + 61_000);
    expect(await outcome(requestOtp(msisdn))).toBe('ok');
  });
});

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Holds the answers of the next `n` single-item reads (GetItem) until `release()`: the callers
 * have read, and act on what they read only after whatever the test does meanwhile.
 */
function pauseAfterReads(n: number): { allPaused: Promise<void>; release: () => void } {
  let paused = 0;
  const released = deferred();
  const allPaused = deferred();
  const name = `pause-${Math.random()}`;
  ddb().middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const command = (context as { commandName?: string }).commandName ?? '';
      if (/^Get(Item)?Command$/.test(command) && paused < n) {
        paused += 1;
        if (paused === n) allPaused.resolve();
        await released.promise;
      }
      return result;
    },
    { step: 'initialize', name },
  );
  return {
    allPaused: allPaused.promise,
    release: () => {
      ddb().middlewareStack.remove(name);
      released.resolve();
    },
  };
}

describe('OTP request: SMS budgets', () => {
  it('one client address cannot have more than its hourly budget of codes sent, whatever the numbers', async () => {
    await withSettings({ OTP_REQUESTS_PER_ADDRESS_PER_HOUR: '10' }, oneAddressBudget);
  });

  async function oneAddressBudget() {
    const attacker = from(newAddress());
    const results = await Promise.all(
      Array.from({ length: 20 }, () => outcome(requestOtp(newMsisdn(), attacker))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(10);
    expect(results.filter((r) => r === 'ERR_RATE_LIMITED')).toHaveLength(10);
    const refused = await requestOtp(newMsisdn(), attacker).catch((e: AppError) => e);
    expect(Number((refused as AppError).headers?.['Retry-After'])).toBeGreaterThan(3000);
    // Somebody else is not held back by this address.
    expect(await outcome(requestOtp(newMsisdn(), from(newAddress())))).toBe('ok');
  }

  it('an attacker rotating IPv6 addresses within one /64 spends one budget', async () => {
    await withSettings({ OTP_REQUESTS_PER_ADDRESS_PER_HOUR: '10' }, rotatingIpv6);
  });

  async function rotatingIpv6() {
    const results = [];
    for (let i = 1; i <= 12; i++) {
      results.push(await outcome(requestOtp(newMsisdn(), from(`2001:db8:aa:1::${i.toString(16)}`))));
    }
    expect(results.filter((r) => r === 'ok')).toHaveLength(10);
    expect(await outcome(requestOtp(newMsisdn(), from('2001:db8:aa:2::1')))).toBe('ok');
  }

  it('a flood from many addresses stops at the platform-wide hourly budget, exactly', async () => {
    await withSettings({ OTP_REQUESTS_PER_HOUR: '5' }, async () => {
      const start = Date.UTC(2030, 0, 1, 10, 15);
      clock.set(() => start);
      const results = await Promise.all(
        Array.from({ length: 12 }, () => outcome(requestOtp(newMsisdn(), from(newAddress())))),
      );
      expect(results.filter((r) => r === 'ok')).toHaveLength(5);
      expect(results.filter((r) => r === 'ERR_RATE_LIMITED')).toHaveLength(7);
      const refused = await requestOtp(newMsisdn(), from(newAddress())).catch((e: AppError) => e);
      // Until the clock hour ends.
      expect((refused as AppError).headers?.['Retry-After']).toBe(String(45 * 60));
      clock.set(() => Date.UTC(2030, 0, 1, 11, 0, 1));
      expect(await outcome(requestOtp(newMsisdn(), from(newAddress())))).toBe('ok');
    });
  });

  it("the request function budgets the caller's source address as API Gateway gives it", async () => {
    await withSettings({ OTP_REQUESTS_PER_ADDRESS_PER_HOUR: '10' }, sourceAddressBudget);
  });

  async function sourceAddressBudget() {
    const sourceIp = newAddress();
    const invoke = (msisdn: string) =>
      otpRequestHandler(
        {
          version: '2.0',
          routeKey: 'POST /api/v1/auth/otp/request',
          rawPath: '/api/v1/auth/otp/request',
          rawQueryString: '',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ msisdn }),
          isBase64Encoded: false,
          requestContext: {
            http: { method: 'POST', path: '/api/v1/auth/otp/request', sourceIp },
            requestId: 'r-1',
          },
        } as unknown as APIGatewayProxyEventV2,
        { awsRequestId: 'r-1', functionName: 'f', getRemainingTimeInMillis: () => 5000 } as Context,
      ) as Promise<APIGatewayProxyStructuredResultV2>;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await invoke(newMsisdn())).statusCode ?? 0);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    const last = await invoke(newMsisdn());
    expect(last.statusCode).toBe(429);
    expect(JSON.parse(last.body as string).error.code).toBe('ERR_RATE_LIMITED');
    expect(Number(last.headers?.['Retry-After'])).toBeGreaterThan(0);
  }
});

describe('client address subjects', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['127.0.0.1', undefined],
    ['::1', undefined],
    ['::ffff:127.0.0.1', undefined],
    ['', 'unknown'],
    ['not an address', 'unknown'],
  ])('%s counts against %s', (ip, subject) => {
    expect(addressSubject(ip)).toBe(subject);
  });
});
