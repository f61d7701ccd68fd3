import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { call, lastOtp, loginRemembering, newMsisdn, useLocalServer } from '../support/http.js';

const server = useLocalServer();

/** SMS written to the local outbox for a number. */
const smsTo = (msisdn: string): number =>
  readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l && (JSON.parse(l) as { to: string }).to === msisdn).length;

const verifyRemembering = (msisdn: string) => loginRemembering(server.url(), msisdn);

const deviceSession = (device_token: string) =>
  call<{ session_token?: string; error?: { code: string } }>(
    server.url(),
    'POST',
    '/api/v1/auth/device/session',
    { body: { device_token } },
  );

afterEach(() => clock.reset());

describe('a remembered device', () => {
  it('gets a working session token again without an SMS', async () => {
    const msisdn = newMsisdn();
    const { device_token } = await verifyRemembering(msisdn);
    expect(device_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(smsTo(msisdn)).toBe(1);

    const again = await deviceSession(device_token);
    expect(again.status).toBe(200);
    const session = await call(server.url(), 'GET', '/api/v1/auth/session', {
      token: again.body.session_token,
    });
    expect(session.body).toMatchObject({ valid: true, role: 'subscriber' });
    expect(smsTo(msisdn)).toBe(1);
  });

  it('is refused (401) once revoked, and its phone goes back to an SMS code', async () => {
    const msisdn = newMsisdn();
    const { device_token } = await verifyRemembering(msisdn);
    const revoked = await call(server.url(), 'POST', '/api/v1/auth/device/revoke', {
      body: { device_token },
    });
    expect(revoked.status).toBe(204);
    const refused = await deviceSession(device_token);
    expect([refused.status, refused.body.error?.code]).toEqual([401, 'ERR_UNAUTHENTICATED']);
    // Back to the OTP: a code, and a new credential.
    const { device_token: fresh } = await verifyRemembering(msisdn);
    expect((await deviceSession(fresh)).status).toBe(200);
    expect(smsTo(msisdn)).toBe(2);
  });

  it('is refused after a logout everywhere, and after its 30 days', async () => {
    const msisdn = newMsisdn();
    const first = await verifyRemembering(msisdn);
    const out = await call(server.url(), 'POST', '/api/v1/auth/logout', { token: first.session_token });
    expect(out.status).toBe(204);
    expect((await deviceSession(first.device_token)).status).toBe(401);

    const second = await verifyRemembering(newMsisdn());
    clock.set(() => Date.now() + 29 * 86_400_000);
    expect((await deviceSession(second.device_token)).status).toBe(200);
    clock.set(() => Date.now() + 30 * 86_400_000 + 1000);
    expect((await deviceSession(second.device_token)).status).toBe(401);
  });

  it('is never given without remember_device, and an unknown or malformed credential is 401 or 400', async () => {
    const msisdn = newMsisdn();
    const asked = await call<{ otp_token: string }>(server.url(), 'POST', '/api/v1/auth/otp/request', {
      body: { msisdn },
    });
    const verified = await call(server.url(), 'POST', '/api/v1/auth/otp/verify', {
      body: { msisdn, otp: lastOtp(msisdn), otp_token: asked.body.otp_token },
    });
    expect(verified.body).not.toHaveProperty('device_token');
    expect((await deviceSession('x'.repeat(43))).status).toBe(401);
    expect((await deviceSession('short')).status).toBe(401);
    const bad = await call(server.url(), 'POST', '/api/v1/auth/device/session', {
      body: { device_token: 7 },
    });
    expect(bad.status).toBe(400);
  });
});
