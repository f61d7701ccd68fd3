import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { upsertOperator } from '../../functions/store/accounts.js';
import { call, lastOtp, newMsisdn, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const api = (method: string, path: string, options?: Parameters<typeof call>[3]) =>
  call(server.url(), method, path, options);

type ErrorBody = { error: { code: string; message: string; details?: { path: string }[] } };

describe('the README login flow over HTTP', () => {
  it('requests a code, verifies it and validates the session', async () => {
    const msisdn = newMsisdn();
    const requested = await api('POST', '/api/v1/auth/otp/request', { body: { msisdn } });
    expect(requested.status).toBe(200);
    expect(requested.body).toEqual({ otp_token: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const verified = await api('POST', '/api/v1/auth/otp/verify', { body: { msisdn, otp: lastOtp(msisdn) } });
    expect(verified.status).toBe(200);
    const session = verified.body as { session_token: string; subscriber_ref: string; expires_in: number };
    expect(session.expires_in).toBe(900);
    expect(session.subscriber_ref).toBe(`SUB-${msisdn.slice(1)}`);

    const checked = await api('GET', '/api/v1/auth/session', { token: session.session_token });
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ valid: true, subscriber_ref: session.subscriber_ref });
    const expiresAt = Date.parse((checked.body as { expires_at: string }).expires_at);
    expect(expiresAt - Date.now()).toBeGreaterThan(890_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(900_000);
  });

  it('gives exactly three 200s to ten parallel requests for one MSISDN, the rest 429 with Retry-After', async () => {
    const msisdn = newMsisdn();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => api('POST', '/api/v1/auth/otp/request', { body: { msisdn } })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    for (const r of limited) {
      expect((r.body as ErrorBody).error.code).toBe('ERR_RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('answers an operator number exactly as it answers a new one', async () => {
    const known = newMsisdn();
    await upsertOperator({ msisdn: known, role: 'admin' });
    const a = await api('POST', '/api/v1/auth/otp/request', { body: { msisdn: known } });
    const b = await api('POST', '/api/v1/auth/otp/request', { body: { msisdn: newMsisdn() } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(Object.keys(a.body as object)).toEqual(Object.keys(b.body as object));
  });

  it('answers 400 ERR_MSISDN_INVALID for a number that is not E.164', async () => {
    const r = await api('POST', '/api/v1/auth/otp/request', { body: { msisdn: '0712345678' } });
    expect(r.status).toBe(400);
    expect((r.body as ErrorBody).error.code).toBe('ERR_MSISDN_INVALID');
  });

  it('answers 401 ERR_OTP_INVALID for a wrong code', async () => {
    const msisdn = newMsisdn();
    await api('POST', '/api/v1/auth/otp/request', { body: { msisdn } });
    const wrong = lastOtp(msisdn) === '000000' ? '111111' : '000000';
    const r = await api('POST', '/api/v1/auth/otp/verify', { body: { msisdn, otp: wrong } });
    expect(r.status).toBe(401);
    expect((r.body as ErrorBody).error.code).toBe('ERR_OTP_INVALID');
  });
});

describe('bad requests get a JSON 4xx and change nothing', () => {
  it.each([
    ['malformed JSON', '{"msisdn":', 400, 'ERR_VALIDATION'],
    ['an unknown field', JSON.stringify({ msisdn: '+2250712345678', role: 'admin' }), 400, 'ERR_VALIDATION'],
    ['a missing field', '{}', 400, 'ERR_VALIDATION'],
    ['a number instead of a string', '{"msisdn": 2250712345678}', 400, 'ERR_VALIDATION'],
    ['an array body', '[]', 400, 'ERR_VALIDATION'],
  ])('%s', async (_name, body, status, code) => {
    const r = await api('POST', '/api/v1/auth/otp/request', { body });
    expect(r.status).toBe(status);
    expect((r.body as ErrorBody).error.code).toBe(code);
  });

  it('names the offending field in details', async () => {
    const r = await api('POST', '/api/v1/auth/otp/verify', {
      body: { msisdn: '+2250712345678', otp: '12ab56' },
    });
    expect(r.status).toBe(400);
    expect((r.body as ErrorBody).error.details?.map((d) => d.path)).toContain('body.otp');
  });

  it('answers 415 when the body is not JSON', async () => {
    const r = await api('POST', '/api/v1/auth/otp/request', {
      body: 'msisdn=+2250712345678',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect((r.body as ErrorBody).error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 to a body over 64 KB', async () => {
    const r = await api('POST', '/api/v1/auth/otp/request', {
      body: JSON.stringify({ msisdn: 'x'.repeat(70 * 1024) }),
    });
    expect(r.status).toBe(413);
    expect((r.body as ErrorBody).error.code).toBe('ERR_PAYLOAD_TOO_LARGE');
  });

  it('answers 404 JSON to an unknown route and 405 to a wrong method', async () => {
    const unknown = await api('GET', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect((unknown.body as ErrorBody).error.code).toBe('ERR_NOT_FOUND');
    const wrongMethod = await api('DELETE', '/api/v1/forfaits');
    expect(wrongMethod.status).toBe(405);
  });
});

describe('bearer tokens', () => {
  const key = () => new TextEncoder().encode(process.env.JWT_SECRET as string);
  const claims = { role: 'admin', ref: 'SUB-1' };
  const session = (token?: string) => api('GET', '/api/v1/auth/session', token ? { token } : {});

  it('answers 401 ERR_UNAUTHENTICATED without a token', async () => {
    const r = await session();
    expect(r.status).toBe(401);
    expect((r.body as ErrorBody).error.code).toBe('ERR_UNAUTHENTICATED');
  });

  it('answers 401 to an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('hotspot-platform')
      .setAudience('hotspot-api')
      .setSubject(randomUUID())
      .setIssuedAt(now - 1000)
      .setExpirationTime(now - 100)
      .sign(key());
    expect((await session(token)).status).toBe(401);
  });

  it('answers 401 to a forged token and to alg none', async () => {
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('hotspot-platform')
      .setAudience('hotspot-api')
      .setSubject(randomUUID())
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode('not-the-key-not-the-key-not-the-key'));
    const none = new UnsecuredJWT(claims)
      .setIssuer('hotspot-platform')
      .setAudience('hotspot-api')
      .setSubject(randomUUID())
      .setIssuedAt()
      .setExpirationTime('10m')
      .encode();
    expect((await session(forged)).status).toBe(401);
    expect((await session(none)).status).toBe(401);
    expect((await session('garbage')).status).toBe(401);
  });
});

describe('GET /api/v1/forfaits', () => {
  it('is public and paginated over the seeded catalogue', async () => {
    const r = await api('GET', '/api/v1/forfaits?page=2&page_size=3');
    expect(r.status).toBe(200);
    const body = r.body as { items: { price_fcfa: number }[]; total: number; page: number; pages: number };
    expect(body.total).toBeGreaterThanOrEqual(7);
    expect(body.page).toBe(2);
    expect(body.pages).toBe(Math.ceil(body.total / 3));
    expect(body.items).toHaveLength(3);
    for (const f of body.items) {
      expect(f).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        price_fcfa: expect.any(Number),
        duration_hours: expect.any(Number),
        data_limit_mb: expect.any(Number),
        cir_kbps: expect.any(Number),
        mir_kbps: expect.any(Number),
      });
    }
  });

  it('lists cheapest first', async () => {
    const r = await api('GET', '/api/v1/forfaits?page_size=100');
    const prices = (r.body as { items: { price_fcfa: number }[] }).items.map((f) => f.price_fcfa);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
  });

  it.each(['page=0', 'page_size=101', 'page=abc', 'sort=price'])('refuses ?%s with 400', async (q) => {
    const r = await api('GET', `/api/v1/forfaits?${q}`);
    expect(r.status).toBe(400);
    expect((r.body as ErrorBody).error.code).toBe('ERR_VALIDATION');
  });
});

describe('POST /auth/otp/request with a country (the console)', () => {
  it('reads a national number in that country and answers it as read; the code is verified under it', async () => {
    const e164 = newMsisdn();
    const national = e164.slice(4).replace(/(\d\d)(?=\d)/g, '$1 ');
    const r = await api('POST', '/api/v1/auth/otp/request', { body: { msisdn: national, country: 'CI' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ otp_token: expect.any(String), msisdn: e164, country: 'CI' });
    const v = await api('POST', '/api/v1/auth/otp/verify', {
      body: { msisdn: e164, otp: lastOtp(e164), otp_token: (r.body as { otp_token: string }).otp_token },
    });
    expect(v.status).toBe(200);
  });

  it('refuses a number that country has not (400), and reads an international one as it is', async () => {
    // A national number valid in one other country only is read as that country's (a Senegalese
    // number typed on an Ivorian hotspot); one no country has is refused.
    const elsewhere = await api('POST', '/api/v1/auth/otp/request', {
      body: { msisdn: '77 123 45 67', country: 'CI' },
    });
    expect(elsewhere.status).toBe(200);
    expect((elsewhere.body as { msisdn: string }).msisdn).toBe('+221771234567');
    const refused = await api('POST', '/api/v1/auth/otp/request', {
      body: { msisdn: '12 34', country: 'CI' },
    });
    expect(refused.status).toBe(400);
    expect((refused.body as { error: { code: string } }).error.code).toBe('ERR_MSISDN_INVALID');
    expect(
      (await api('POST', '/api/v1/auth/otp/request', { body: { msisdn: '12 34', country: 'XX' } })).status,
    ).toBe(400);
    // Without a country, a national number stays refused, as the API contract says.
    expect((await api('POST', '/api/v1/auth/otp/request', { body: { msisdn: '0712345678' } })).status).toBe(
      400,
    );
  });
});
