import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The log level is read when the logger is built: set it before any function module loads.
process.env.LOG_LEVEL = 'INFO';
const { call, lastOtp, newMsisdn, useLocalServer } = await import('../support/http.js');

const server = useLocalServer();

/** Everything the functions print while the callback runs. */
const captured: string[] = [];
const originals = {
  out: process.stdout.write.bind(process.stdout),
  err: process.stderr.write.bind(process.stderr),
};

beforeAll(() => {
  const capture =
    () =>
    (chunk: string | Uint8Array): boolean => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    };
  process.stdout.write = capture() as typeof process.stdout.write;
  process.stderr.write = capture() as typeof process.stderr.write;
});

afterAll(() => {
  process.stdout.write = originals.out;
  process.stderr.write = originals.err;
});

describe('no secret, code, hash or phone number leaks', () => {
  it('keeps them out of every log line and response of a login with a wrong then a right code', async () => {
    const msisdn = newMsisdn();
    const bodies: string[] = [];
    const req = await call(server.url(), 'POST', '/api/v1/auth/otp/request', { body: { msisdn } });
    bodies.push(JSON.stringify(req.body));
    const code = lastOtp(msisdn);
    const wrong = code === '000000' ? '111111' : '000000';
    const bad = await call(server.url(), 'POST', '/api/v1/auth/otp/verify', { body: { msisdn, otp: wrong } });
    bodies.push(JSON.stringify(bad.body));
    const ok = await call<{ session_token: string }>(server.url(), 'POST', '/api/v1/auth/otp/verify', {
      body: { msisdn, otp: code },
    });
    expect(ok.status).toBe(200);

    const logs = captured.join('');
    // Prove the capture works: the flow did log, with masked numbers and the request id.
    expect(logs).toContain('otp sent');
    expect(logs).toContain('otp rejected');
    expect(logs).toContain(`${msisdn.slice(0, 4)}`);
    expect(logs).toContain('function_request_id');

    const everything = `${logs}\n${bodies.join('\n')}`;
    for (const secret of [process.env.JWT_SECRET, process.env.OTP_PEPPER, process.env.WEBHOOK_SECRET]) {
      expect(everything).not.toContain(secret);
    }
    expect(logs).not.toContain(msisdn);
    expect(logs).not.toContain(msisdn.slice(1));
    expect(logs).not.toMatch(new RegExp(`\\b${code}\\b`));
    expect(logs).not.toContain(ok.body.session_token);
    expect(everything).not.toMatch(/\b[0-9a-f]{64}\b/);
  });

  it('keeps the webhook secret out of logs and answers, right or wrong', async () => {
    const from = captured.length;
    const body = {
      event_id: 'evt-leak-check',
      transaction_id: '6f1c0d7e-2a3b-4c5d-8e9f-0a1b2c3d4e5f',
      status: 'completed',
      amount_fcfa: 100,
      provider: 'wave',
    };
    const wrong = await call(server.url(), 'POST', '/api/v1/payments/webhook', {
      body,
      headers: { 'x-provider-secret': `${process.env.WEBHOOK_SECRET}x` },
    });
    const right = await call(server.url(), 'POST', '/api/v1/payments/webhook', {
      body,
      headers: { 'x-provider-secret': process.env.WEBHOOK_SECRET as string },
    });
    expect([wrong.status, right.status]).toEqual([401, 404]);
    const text = `${captured.slice(from).join('')}\n${JSON.stringify(wrong.body)}\n${JSON.stringify(right.body)}`;
    expect(text).not.toContain(process.env.WEBHOOK_SECRET as string);
  });
});
