import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { localPages } from '../../bin/local/pages.js';
import { type LocalServer, startServer } from '../../bin/local/server.js';
import { signSession } from '../../functions/auth/tokens.js';
import { type Role, sessionClaims } from '../../functions/core/principal.js';
import { startFrontService } from '../../functions/front/service.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { checkAgainstContract } from './contract.js';
import { createTestTable } from './db.js';

/**
 * Starts the real local server (the API: every route-table row API Gateway serves) on a fresh
 * table for this file; with `front`, the RADIUS front's service too (the rows of plane
 * 'front', functions/front/service.ts), in this process, at `frontUrl()`.
 */
export function useLocalServer(
  options: { seed?: boolean; trustForwardedFor?: boolean; front?: boolean } = {},
): {
  url: () => string;
  frontUrl: () => string;
} {
  let server: LocalServer | undefined;
  let front: Awaited<ReturnType<typeof startFrontService>> | undefined;
  beforeAll(async () => {
    await createTestTable({ seed: options.seed ?? true });
    server = await startServer({
      port: 0,
      pages: localPages(),
      ...(options.trustForwardedFor ? { trustForwardedFor: true } : {}),
    });
    process.env.PUBLIC_BASE_URL = server.url;
    if (options.front) {
      front = await startFrontService({ port: 0 });
      await front.routers.ready;
    }
  });
  afterAll(async () => {
    await front?.close();
    await server?.close();
  });
  return {
    url: () => {
      if (!server) throw new Error('server not started');
      return server.url;
    },
    frontUrl: () => {
      if (!front) throw new Error('front service not started (useLocalServer({ front: true }))');
      return front.url;
    },
  };
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** One JSON request; `token` adds the bearer header. */
export async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined
      ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
      : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  // Every response of the API the HTTP tests see is also checked against the OpenAPI document
  // (the RADIUS front's service is not the public API: FreeRADIUS's rlm_rest reads its answers).
  if (!path.startsWith('/api/v1/radius/'))
    await checkAgainstContract(method, path, res.status, res.headers.get('content-type'), body);
  return { status: res.status, headers: res.headers, body: body as T };
}

/** The texts the outbox holds for an MSISDN, oldest first. */
export const smsTexts = (msisdn: string): string[] =>
  readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string; message: string })
    .filter((s) => s.to === msisdn)
    .map((s) => s.message);

/** The last code the outbox holds for an MSISDN. */
export function lastOtp(msisdn: string): string {
  const lines = readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
    .trim()
    .split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const sms = JSON.parse(lines[i] as string) as { to: string; message: string };
    if (sms.to === msisdn) {
      const code = /\b(\d{6})\b/.exec(sms.message)?.[1];
      if (code) return code;
    }
  }
  throw new Error(`no SMS for ${msisdn}`);
}

/** Logs in through the real OTP flow and returns the session token. */
export async function login(base: string, msisdn: string): Promise<string> {
  return (await verifiedLogin(base, msisdn, false)).session_token;
}

/** Logs a number in through the OTP flow, asking to remember the device: its session and device tokens. */
export function loginRemembering(
  base: string,
  msisdn: string,
): Promise<{ session_token: string; device_token: string }> {
  return verifiedLogin(base, msisdn, true) as Promise<{ session_token: string; device_token: string }>;
}

async function verifiedLogin(
  base: string,
  msisdn: string,
  remember: boolean,
): Promise<{ session_token: string; device_token?: string }> {
  const req = await call<{ otp_token: string }>(base, 'POST', '/api/v1/auth/otp/request', {
    body: { msisdn },
  });
  if (req.status !== 200) throw new Error(`otp request failed: ${req.status} ${JSON.stringify(req.body)}`);
  const res = await call<{ session_token: string; device_token?: string }>(
    base,
    'POST',
    '/api/v1/auth/otp/verify',
    {
      body: {
        msisdn,
        otp: lastOtp(msisdn),
        otp_token: req.body.otp_token,
        ...(remember ? { remember_device: true } : {}),
      },
    },
  );
  if (res.status !== 200) throw new Error(`otp verify failed: ${res.status} ${JSON.stringify(res.body)}`);
  if (remember && !res.body.device_token) throw new Error('otp verify gave no device token');
  return res.body;
}

let msisdnCounter = 0;
/** A distinct valid Ivorian mobile number per call (the OTP rate limit is per number). */
export function newMsisdn(): string {
  msisdnCounter += 1;
  const n = (Date.now() % 1_000_000) * 100 + msisdnCounter;
  return `+22507${String(n).padStart(8, '0').slice(-8)}`;
}

/** Registers an operator account and logs it in through the OTP flow. */
export async function loginAs(
  base: string,
  role: 'admin' | 'reseller',
  resellerId: string = randomUUID(),
): Promise<{ token: string; resellerId: string; msisdn: string }> {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role, ...(role === 'reseller' ? { resellerId } : {}) });
  return { token: await login(base, msisdn), resellerId, msisdn };
}

/** A token minted directly (for matrices that need many principals quickly). */
export async function tokenFor(
  role: Role,
  options: { sub?: string; resellerId?: string; agentId?: string } = {},
): Promise<string> {
  const { token } = await signSession(
    sessionClaims({
      sub: options.sub ?? randomUUID(),
      role,
      ref: 'SUB-22500000000',
      resellerId: options.resellerId,
      agentId: options.agentId,
    }),
  );
  return token;
}
