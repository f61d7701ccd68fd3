import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { call, lastOtp, newMsisdn, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const api = <T = Record<string, unknown>>(
  method: string,
  path: string,
  options?: Parameters<typeof call>[3],
) => call<T>(server.url(), method, path, options);

interface Login {
  session_token: string;
  refresh_token: string;
  expires_in: number;
}

/** A reseller's login through the SMS code: its token pair. */
async function consoleLogin(msisdn: string): Promise<Login> {
  const req = await api<{ otp_token: string }>('POST', '/api/v1/auth/otp/request', { body: { msisdn } });
  const res = await api<Login>('POST', '/api/v1/auth/otp/verify', {
    body: { msisdn, otp: lastOtp(msisdn), otp_token: req.body.otp_token },
  });
  expect(res.status).toBe(200);
  return res.body;
}

const givenReseller = async () => {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role: 'reseller', resellerId: crypto.randomUUID() });
  return msisdn;
};
const refresh = (token: string) =>
  api<Login>('POST', '/api/v1/auth/refresh', { body: { refresh_token: token } });
const session = (token: string) => api('GET', '/api/v1/auth/session', { token });

afterEach(() => clock.reset());

describe('a console session', () => {
  it('renews its token without an SMS all day while it is used, then ends', async () => {
    const msisdn = await givenReseller();
    const first = await consoleLogin(msisdn);
    expect(first).toMatchObject({
      expires_in: 900,
      refresh_token: expect.stringMatching(/^[0-9a-f-]{36}\.0\./),
    });

    // A refresh every 100 minutes (the token lapsed between: a pause) for 11 hours: a new token each time, no SMS.
    const start = Date.now();
    let pair = first;
    for (let t = 100; t <= 11 * 60; t += 100) {
      clock.set(() => start + t * 60_000);
      const next = await refresh(pair.refresh_token);
      expect(next.status).toBe(200);
      expect((await session(next.body.session_token)).status).toBe(200);
      pair = next.body;
    }
    // Past twelve hours, the day is over whatever the use.
    clock.set(() => start + 12 * 3600_000 + 1000);
    expect((await refresh(pair.refresh_token)).status).toBe(401);
  });

  it('ends after two hours without a refresh', async () => {
    const pair = await consoleLogin(await givenReseller());
    const start = Date.now();
    clock.set(() => start + 2 * 3600_000 + 1000);
    expect((await refresh(pair.refresh_token)).body).toMatchObject({
      error: { code: 'ERR_UNAUTHENTICATED' },
    });
  });

  it('takes the previous refresh token a minute after it was replaced (two tabs of one session), and ends on an older one', async () => {
    const pair = await consoleLogin(await givenReseller());
    const [a, b] = await Promise.all([refresh(pair.refresh_token), refresh(pair.refresh_token)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Both tabs go on with the same, current generation.
    expect(a.body.refresh_token).toBe(b.body.refresh_token);
    const next = await refresh(a.body.refresh_token);
    expect(next.status).toBe(200);
    // The first generation, two behind: replayed. The session ends, its tokens with it.
    expect((await refresh(pair.refresh_token)).status).toBe(401);
    expect((await refresh(next.body.refresh_token)).status).toBe(401);
    expect((await session(next.body.session_token)).status).toBe(401);
  });

  it('forks a session of its own for a tab opened from another: each rotates alone, the day is the first login’s', async () => {
    const pair = await consoleLogin(await givenReseller());
    const forked = await api<Login>('POST', '/api/v1/auth/refresh', {
      body: { refresh_token: pair.refresh_token, fork: true },
    });
    expect(forked.status).toBe(200);
    expect(forked.body.refresh_token.split('.')[0]).not.toBe(pair.refresh_token.split('.')[0]);
    // Both go on, each with its own generations; one's logout leaves the other.
    const a = await refresh(pair.refresh_token);
    const b = await refresh(forked.body.refresh_token);
    expect([a.status, b.status]).toEqual([200, 200]);
    await api('POST', '/api/v1/auth/logout', { token: b.body.session_token });
    expect((await refresh(b.body.refresh_token)).status).toBe(401);
    expect((await refresh(a.body.refresh_token)).status).toBe(200);
  });

  it('refuses a forged or malformed refresh token with a 401, and a body without one with a 400', async () => {
    const pair = await consoleLogin(await givenReseller());
    const [sid, gen] = pair.refresh_token.split('.');
    expect((await refresh(`${sid}.${gen}.${'A'.repeat(43)}`)).status).toBe(401);
    expect((await refresh('nonsense')).status).toBe(401);
    expect((await api('POST', '/api/v1/auth/refresh', { body: {} })).status).toBe(400);
    expect((await refresh(pair.refresh_token)).status).toBe(200);
  });

  it('logs out this session only; "log out everywhere" ends every one', async () => {
    const msisdn = await givenReseller();
    const phone = await consoleLogin(msisdn);
    const laptop = await consoleLogin(msisdn);
    const tablet = await consoleLogin(msisdn);

    expect((await api('POST', '/api/v1/auth/logout', { token: phone.session_token })).status).toBe(204);
    expect((await session(phone.session_token)).status).toBe(401);
    expect((await refresh(phone.refresh_token)).status).toBe(401);
    expect((await session(laptop.session_token)).status).toBe(200);
    expect((await refresh(laptop.refresh_token)).status).toBe(200);

    expect((await api('POST', '/api/v1/auth/logout/all', { token: tablet.session_token })).status).toBe(204);
    expect((await session(tablet.session_token)).status).toBe(401);
    expect((await session(laptop.session_token)).status).toBe(401);
    expect((await refresh(laptop.refresh_token)).status).toBe(401);
    // A new login works (a minute later: three codes a minute per number).
    const now = Date.now();
    clock.set(() => now + 61_000);
    expect((await session((await consoleLogin(msisdn)).session_token)).status).toBe(200);
  });

  it('gives a subscriber no refresh token', async () => {
    const msisdn = newMsisdn();
    const req = await api<{ otp_token: string }>('POST', '/api/v1/auth/otp/request', { body: { msisdn } });
    const res = await api('POST', '/api/v1/auth/otp/verify', {
      body: { msisdn, otp: lastOtp(msisdn), otp_token: req.body.otp_token },
    });
    expect(res.body).not.toHaveProperty('refresh_token');
  });
});
