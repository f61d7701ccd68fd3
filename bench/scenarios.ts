import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SEED_FORFAITS } from '../functions/billing/catalogue.js';
import { initiatePayment } from '../functions/billing/payments/initiate.js';
import type { RequestSpec } from './load.js';

/** What a scenario may use: the server's URL and ready-made tokens. */
export interface BenchContext {
  baseUrl: string;
  tokens: { subscriber: string; reseller: string; admin: string };
  resellerId: string;
}

export interface Scenario {
  /** Route key as in the route table. */
  route: string;
  /** Runs once before measuring; returns the request to send for the i-th measurement. */
  prepare: (ctx: BenchContext, count: number) => Promise<(i: number) => RequestSpec>;
  /** The status every measured request must answer. */
  expect: number;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (body: unknown) => JSON.stringify(body);

/** `+22507` and eight digits, distinct per i (the OTP limit is per number). */
const msisdn = (seed: number, i: number) =>
  `+22507${String((seed * 100_000 + i) % 100_000_000).padStart(8, '0')}`;

function codesFromOutbox(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const line of readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
    .trim()
    .split('\n')) {
    const sms = JSON.parse(line) as { to: string; message: string };
    const code = /\b(\d{6})\b/.exec(sms.message)?.[1];
    if (code) codes.set(sms.to, code);
  }
  return codes;
}

export const scenarios: Scenario[] = [
  {
    route: 'POST /api/v1/auth/otp/request',
    expect: 200,
    prepare: async () => {
      const seed = Math.floor(Math.random() * 900) + 100;
      return (i) => ({
        method: 'POST',
        path: '/api/v1/auth/otp/request',
        body: json({ msisdn: msisdn(seed, i) }),
      });
    },
  },
  {
    route: 'POST /api/v1/auth/otp/verify',
    expect: 200,
    prepare: async (ctx, count) => {
      const seed = Math.floor(Math.random() * 900) + 100;
      const numbers = Array.from({ length: count }, (_, i) => msisdn(seed, i));
      for (const n of numbers) {
        await fetch(`${ctx.baseUrl}/api/v1/auth/otp/request`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: json({ msisdn: n }),
        });
      }
      const codes = codesFromOutbox();
      return (i) => {
        const n = numbers[i % numbers.length] as string;
        return {
          method: 'POST',
          path: '/api/v1/auth/otp/verify',
          body: json({ msisdn: n, otp: codes.get(n) }),
        };
      };
    },
  },
  {
    route: 'GET /api/v1/auth/session',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: '/api/v1/auth/session',
      headers: bearer(ctx.tokens.subscriber),
    }),
  },
  {
    route: 'GET /api/v1/forfaits',
    expect: 200,
    prepare: async () => () => ({ method: 'GET', path: '/api/v1/forfaits' }),
  },
  {
    route: 'POST /api/v1/payments/webhook',
    expect: 200,
    prepare: async (_ctx, count) => {
      const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push(
          (await initiatePayment({ subscriberId: randomUUID(), forfaitId: forfait.id, provider: 'wave' }))
            .transaction_id,
        );
      }
      return (i) => ({
        method: 'POST',
        path: '/api/v1/payments/webhook',
        headers: { 'x-provider-secret': process.env.WEBHOOK_SECRET as string },
        body: json({
          event_id: randomUUID(),
          transaction_id: ids[i % ids.length],
          status: 'completed',
          amount_fcfa: forfait.price_fcfa,
          provider: 'wave',
        }),
      });
    },
  },
  {
    route: 'GET /api/v1/billing/summary',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: `/api/v1/billing/summary?reseller_id=${ctx.resellerId}&month=${new Date().toISOString().slice(0, 7)}`,
      headers: bearer(ctx.tokens.reseller),
    }),
  },
  {
    route: 'GET /api/v1/branding/{nas_id}',
    expect: 200,
    prepare: async (ctx) => {
      const nasId = await benchVlan(ctx);
      return () => ({ method: 'GET', path: `/api/v1/branding/${nasId}?view=portal` });
    },
  },
  {
    route: 'GET /api/v1/network/vlans',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: '/api/v1/network/vlans',
      headers: bearer(ctx.tokens.admin),
    }),
  },
  {
    route: 'GET /api/v1/network/dns/status',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: '/api/v1/network/dns/status',
      headers: bearer(ctx.tokens.subscriber),
    }),
  },
  {
    route: 'GET /api/v1/network/gateway/rules',
    expect: 200,
    prepare: async (ctx) => {
      await benchVlan(ctx);
      return () => ({
        method: 'GET',
        path: '/api/v1/network/gateway/rules?vlan=10',
        headers: bearer(ctx.tokens.admin),
      });
    },
  },
  {
    route: 'GET /api/v1/monitoring/status',
    expect: 200,
    prepare: async () => () => ({ method: 'GET', path: '/api/v1/monitoring/status' }),
  },
  {
    route: 'GET /api/v1/monitoring/overview',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: '/api/v1/monitoring/overview',
      headers: bearer(ctx.tokens.admin),
    }),
  },
  {
    route: 'GET /api/v1/canary/status',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: '/api/v1/canary/status',
      headers: bearer(ctx.tokens.subscriber),
    }),
  },
  {
    route: 'GET /api/v1/alerts',
    expect: 200,
    prepare: async (ctx) => () => ({
      method: 'GET',
      path: '/api/v1/alerts',
      headers: bearer(ctx.tokens.reseller),
    }),
  },
];

let vlanOnce: Promise<string> | undefined;
/** The bench reseller's VLAN (its NAS id), allocated once. */
function benchVlan(ctx: BenchContext): Promise<string> {
  vlanOnce ??= fetch(`${ctx.baseUrl}/api/v1/network/vlan/allocate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(ctx.tokens.admin) },
    body: json({ reseller_id: ctx.resellerId, reseller_name: 'Bench Spot', site_count: 1 }),
  }).then(async (r) => ((await r.json()) as { nas_id: string }).nas_id);
  return vlanOnce;
}

/** A fresh UUID per request, for scenarios that create things. */
export const freshId = (): string => randomUUID();
