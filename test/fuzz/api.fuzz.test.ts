import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../bin/local/openapi.js';
import { signSession } from '../../functions/auth/tokens.js';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { CONSOLE_ASSETS } from '../../functions/console/assets.generated.js';
import { clock } from '../../functions/core/clock.js';
import { sessionClaims } from '../../functions/core/principal.js';
import { PORTAL_ASSETS } from '../../functions/portal/assets.generated.js';
import { raiseAlertOnce } from '../../functions/store/alerts.js';
import { checkAgainstContract } from '../support/contract.js';
import { useLocalServer } from '../support/http.js';
import { body as bodyArb, type JsonSchema, type Known, maybeValid, valid } from './schema-arbitraries.js';

/**
 * Property-based requests drawn from the OpenAPI document, sent to the real local server by
 * every kind of caller with valid credentials, over seeded data. Every answer must be in the
 * document (status, error code, body) and none may be a 5xx, except the RADIUS routes' 502 to a
 * caller without the RADIUS bearer (on purpose: FreeRADIUS reads 401 as "reject the user").
 *
 * `npm run fuzz` runs it alone; `npm test` runs it with the other tests. FUZZ_REQUESTS (default
 * 3000) and FUZZ_SEED (default fixed, so CI is reproducible) change the run.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_250_301);
const CONCURRENCY = 8;

const ROLES = [
  'anonymous',
  'subscriber',
  'owner',
  'otherReseller',
  'admin',
  'agent',
  'radius',
  'webhook',
] as const;
type Role = (typeof ROLES)[number];

const server = useLocalServer();

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query'; required: boolean; schema: JsonSchema }[];
  body?: JsonSchema;
}

interface Sent {
  route: string;
  role: Role;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A session token of an account-less number: a logout cannot end it mid-run. */
async function token(
  role: 'subscriber' | 'reseller' | 'admin' | 'agent',
  sub: string,
  resellerId?: string,
  agentId?: string,
) {
  const ref = `SUB-999${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  return (
    await signSession(sessionClaims({ sub, ref, role, ...(resellerId ? { resellerId } : {}), agentId }))
  ).token;
}

async function send(base: string, s: Omit<Sent, 'route' | 'role'>) {
  const res = await fetch(`${base}${s.url}`, {
    method: s.method,
    headers: s.headers,
    ...(s.body !== undefined ? { body: s.body } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text || undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, contentType: res.headers.get('content-type'), body: parsed };
}

/** The seeded world: forfaits, a reseller with a VLAN and sites, vouchers, a payment, alerts. */
async function seed(base: string) {
  const ownerId = randomUUID();
  const otherId = randomUUID();
  const subscriberId = randomUUID();
  const tokens = {
    subscriber: await token('subscriber', subscriberId),
    owner: await token('reseller', randomUUID(), ownerId),
    otherReseller: await token('reseller', randomUUID(), otherId),
    admin: await token('admin', randomUUID()),
    agent: '',
  };
  const json = (method: string, url: string, t: string | undefined, b?: unknown) =>
    send(base, {
      method,
      url,
      headers: {
        ...(t ? { authorization: `Bearer ${t}` } : {}),
        ...(b !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(b !== undefined ? { body: JSON.stringify(b) } : {}),
    });
  const ownerVlan = (await json('POST', '/api/v1/network/vlan/allocate', tokens.admin, {
    reseller_id: ownerId,
    reseller_name: `Fuzz ${ownerId.slice(0, 6)}`,
    site_count: 6,
  })) as { status: number; body: { nas_id: string; vlan_id: number } };
  expect(ownerVlan.status).toBe(201);
  // VLANs the fuzzer may release (the owner's stays, so the rest of the run has data).
  const spare: number[] = [];
  for (let i = 0; i < 3; i++) {
    const v = (await json('POST', '/api/v1/network/vlan/allocate', tokens.admin, {
      reseller_id: randomUUID(),
      reseller_name: `Spare ${randomUUID().slice(0, 6)}`,
    })) as { body: { vlan_id: number } };
    spare.push(v.body.vlan_id);
  }
  const siteNas: string[] = [];
  for (const n of [1, 2]) {
    const site = (await json('POST', '/api/v1/network/sites', tokens.owner, {
      reseller_id: ownerId,
      site_number: n,
      city: n === 1 ? 'Abidjan' : 'Bouaké',
      latitude: 5.3 + n,
      longitude: -4 - n,
    })) as { body: { nas_id?: string } };
    if (site.body.nas_id) siteNas.push(site.body.nas_id);
  }
  const forfaitIds = SEED_FORFAITS.map((f) => f.id);
  const vouchers = (await json('POST', '/api/v1/vouchers/generate', tokens.admin, {
    forfait_id: forfaitIds[0],
    reseller_id: ownerId,
    n: 20,
  })) as { status: number; body: { items?: { code: string }[]; batch_id?: string } };
  const payment = (await json('POST', '/api/v1/payments/initiate', tokens.subscriber, {
    forfait_id: forfaitIds[0],
    provider: 'wave',
    nas_id: ownerVlan.body.nas_id,
  })) as { body: { transaction_id?: string } };
  const alerts: string[] = [];
  for (const site of [ownerVlan.body.nas_id, ...siteNas]) {
    const a = await raiseAlertOnce({
      type: 'SLA_DEGRADED',
      severity: 'P1',
      site,
      ts: clock.iso(),
      message: 'fuzz',
    });
    if (a) alerts.push(a.id);
  }
  const nasIds = [ownerVlan.body.nas_id, ...siteNas];
  const codes = (vouchers.body.items ?? []).map((v) => v.code);
  const paymentIds = payment.body.transaction_id ? [payment.body.transaction_id] : [];
  // An agent of the owner with a float: the fuzzer's `agent` role is that agent.
  const agent = (await json('POST', '/api/v1/agents', tokens.owner, {
    msisdn: `+22507${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    commission_bp: 1000,
  })) as { status: number; body: { id: string } };
  expect(agent.status).toBe(201);
  await json('POST', `/api/v1/agents/${agent.body.id}/allot`, tokens.owner, { float_fcfa: 1_000_000 });
  tokens.agent = await token('agent', randomUUID(), ownerId, agent.body.id);
  const known: Known = {
    reseller_id: [ownerId, otherId, ownerId.toUpperCase()],
    forfait_id: forfaitIds,
    nas_id: [...nasIds, 'access_unknown'],
    vlan_id: [...spare, 9999],
    vlan: [ownerVlan.body.vlan_id, 9999],
    id: [...paymentIds, ...alerts, agent.body.id, randomUUID()],
    transaction_id: [...paymentIds, randomUUID()],
    batch_id: vouchers.body.batch_id ? [vouchers.body.batch_id, randomUUID()] : [randomUUID()],
    code: [...codes, 'ABCDEFGHJK'],
    file: [...Object.keys(PORTAL_ASSETS), ...Object.keys(CONSOLE_ASSETS), 'none.js'],
    provider: ['wave', 'orange_money', 'cinetpay', 'fedapay'],
    msisdn: ['+2250712345678', '+2250799999999', '+221771234567'],
    month: ['2024-01', clock.iso().slice(0, 7)],
    from: ['2024-01-01', clock.iso().slice(0, 10)],
    to: [clock.iso().slice(0, 10), '2024-02-01'],
    day: [clock.iso().slice(0, 10), '2024-01-01'],
    country: ['CI', 'SN', 'CM'],
    site_number: [1, 2, 3, 6, 7],
    user_id: [subscriberId],
    logo_url: ['https://cdn.example.com/logo.png', 'https://static.example.org/a/b.svg?v=2'],
    custom_css: ['.banner { color: #fff; }', '.a { background: url("data:image/png;base64,AAAA") }'],
    last_update: [new Date(Date.now() - 60_000).toISOString(), '2024-01-01T00:00:00+01:00'],
    sinkhole_ip: ['10.0.0.53'],
    city: ['Abidjan', 'Yamoussoukro', 'Saint-Louis'],
    reseller_name: ['Fuzz Spot', 'Café Wifi', 'Ⱦ£'],
    // FreeRADIUS's attributes (names, then values by name).
    '@attribute': [
      'User-Name',
      'User-Password',
      'NAS-Identifier',
      'Calling-Station-Id',
      'NAS-Port',
      'Acct-Status-Type',
      'Acct-Session-Id',
      'Acct-Unique-Session-Id',
      'Acct-Session-Time',
      'Acct-Input-Octets',
      'Acct-Output-Octets',
      'Acct-Input-Gigawords',
      'Acct-Output-Octets64',
    ],
    '@User-Name': [...codes.slice(0, 5), 'abcde-fghjk', 'NOPE'],
    '@NAS-Identifier': [...nasIds, 'access_unknown'],
    '@Calling-Station-Id': ['AA-BB-CC-DD-EE-FF', 'aa:bb:cc:dd:ee:01'],
    '@Acct-Status-Type': ['Start', 'Interim-Update', 'Stop', 'Accounting-On', 'Accounting-Off', 'Nope'],
    '@Acct-Unique-Session-Id': ['0123456789abcdef', 'fedcba9876543210'],
    '@Acct-Session-Time': [0, 60, 3600, 1e-200, -5, 'abc'],
    '@Acct-Input-Octets': [0, 1024, 4294967295, 1e300],
    '@Acct-Output-Octets64': ['18446744073709551615', '12'],
  };
  return { tokens, known };
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const content = (op.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)
        ?.content;
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []) as Operation['params'],
        ...(content?.['application/json'] ? { body: content['application/json'].schema } : {}),
      });
    }
  }
  return out;
}

/** `arb` once in `n` draws, else null. */
const rarely = <T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

/** Requests for one operation and one caller, drawn from the document. */
function requests(
  op: Operation,
  role: Role,
  known: Known,
  tokens: Record<string, string>,
): fc.Arbitrary<Sent> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const segment = (p: Operation['params'][number]) =>
    fc.oneof(
      { weight: 18, arbitrary: valid(p.schema, known, p.name).map(String) },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%', '..', 'A'.repeat(300)) },
    );
  const query = fc.record(
    Object.fromEntries(queryParams.map((p) => [p.name, maybeValid(p.schema, known, p.name, 15)])),
    { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name) },
  );
  const extra = rarely(fc.constantFrom('smuggled', 'debug', 'page'), 12);
  // Mostly a body from the schema; now and then none at all.
  const body = op.body
    ? fc.oneof(
        { weight: 25, arbitrary: bodyArb(op.body, known) },
        { weight: 1, arbitrary: fc.constant(null) },
      )
    : fc.constant(null);
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded') },
  );
  return fc
    .record({
      path: fc.tuple(...pathParams.map(segment)),
      query,
      extra,
      body,
      contentType,
      raw: rarely(fc.constantFrom('{', 'null', '[]', '"x"', '{"a":', 'cpm_trans_id=1&x=2'), 25),
      idempotency: rarely(fc.constantFrom(randomUUID(), 'bad key!', 'k'.repeat(65)), 6),
      ifNoneMatch: rarely(fc.constantFrom('*', '"nope"', 'W/"x"'), 6),
    })
    .map((r) => {
      let i = 0;
      const path = op.path.replace(/\{\w+\}/g, () => {
        const v = r.path[i++] ?? '';
        return /%|\.\./.test(v) ? v : encodeURIComponent(v);
      });
      const search = new URLSearchParams();
      for (const [k, v] of Object.entries(r.query)) {
        if (v !== undefined) search.set(k, typeof v === 'string' ? v : JSON.stringify(v));
      }
      if (r.extra) search.append(r.extra, '1');
      const headers: Record<string, string> = {};
      const bearer = {
        anonymous: undefined,
        subscriber: tokens.subscriber,
        owner: tokens.owner,
        otherReseller: tokens.otherReseller,
        admin: tokens.admin,
        agent: tokens.agent,
        radius: process.env.RADIUS_API_SECRET?.split(/[\s,]+/)[0],
        webhook: undefined,
      }[role];
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      if (role === 'webhook') headers['x-provider-secret'] = process.env.WEBHOOK_SECRET ?? '';
      if (r.idempotency) headers['idempotency-key'] = r.idempotency;
      if (r.ifNoneMatch) headers['if-none-match'] = r.ifNoneMatch;
      let text: string | undefined;
      if (op.body) {
        text = r.raw ?? (r.body === null ? undefined : JSON.stringify(r.body));
        if (text !== undefined) headers['content-type'] = r.contentType;
      }
      const qs = search.toString();
      return {
        route: `${op.method} ${op.path}`,
        role,
        method: op.method,
        url: `${path}${qs ? `?${qs}` : ''}`,
        headers,
        ...(text !== undefined ? { body: text } : {}),
      };
    });
}

/** Runs `tasks` with at most `n` at once. */
async function pool<T>(items: T[], n: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await run(item);
      }
    }),
  );
}

describe('fuzzing the API from its OpenAPI document', () => {
  it(`answers ${REQUESTS} generated requests, every role, within the document and without a 5xx`, async () => {
    const started = Date.now();
    const base = server.url();
    const { tokens, known } = await seed(base);
    const ops = operations(await buildOpenApi());
    const perPair = Math.max(1, Math.ceil(REQUESTS / (ops.length * ROLES.length)));
    const all: Sent[] = [];
    ops.forEach((op, i) => {
      ROLES.forEach((role, j) => {
        all.push(
          ...fc.sample(requests(op, role, known, tokens), { numRuns: perPair, seed: SEED + i * 31 + j }),
        );
      });
    });
    // Methods a path has no operation for: 405 with Allow (HEAD and OPTIONS too), never a 5xx.
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
    for (const path of new Set(ops.map((o) => o.path))) {
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        encodeURIComponent(String(known[name]?.[0] ?? 'x')),
      );
      for (const method of methods) {
        if (ops.some((o) => o.path === path && o.method === method)) continue;
        all.push({ route: '(a method without an operation)', role: 'anonymous', method, url, headers: {} });
      }
    }
    // Interleave the routes, as real traffic would.
    const order = fc.sample(fc.shuffledSubarray(all, { minLength: all.length }), {
      numRuns: 1,
      seed: SEED,
    })[0];

    const counts = new Map<string, Map<Role, number>>();
    const statuses = new Map<string, Map<number, number>>();
    const failures = new Map<string, string>();
    await pool(order ?? all, CONCURRENCY, async (s) => {
      const res = await send(base, s);
      const byRole = counts.get(s.route) ?? new Map<Role, number>();
      byRole.set(s.role, (byRole.get(s.role) ?? 0) + 1);
      counts.set(s.route, byRole);
      const byStatus = statuses.get(s.route) ?? new Map<number, number>();
      byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
      statuses.set(s.route, byStatus);
      const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code;
      const problems: string[] = [];
      if (res.status >= 500 && !(res.status === 502 && code === 'ERR_RADIUS_CREDENTIALS'))
        problems.push(`${res.status} ${String(code)}`);
      try {
        // The path as it reached the server (a client resolves `..` segments before sending).
        const sentTo = new URL(`${base}${s.url}`);
        await checkAgainstContract(
          s.method,
          `${sentTo.pathname}${sentTo.search}`,
          res.status,
          res.contentType,
          res.body,
        );
      } catch (error) {
        problems.push((error as Error).message);
      }
      for (const p of problems) {
        const key = `${s.route} ${res.status} ${String(code)}`;
        if (!failures.has(key)) {
          failures.set(key, `${p}\n    as ${s.role}: ${s.method} ${s.url} ${s.body ?? ''}`.slice(0, 1500));
        }
      }
    });

    const seconds = (Date.now() - started) / 1000;
    const lines = [
      `fuzz: ${all.length} requests in ${seconds.toFixed(1)} s (seed ${SEED}), ${ops.length} operations x ${ROLES.length} roles`,
      `${'route'.padEnd(48)} ${ROLES.map((r) => r.slice(0, 9).padStart(9)).join(' ')}  statuses`,
      ...[...counts.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(
          ([route, byRole]) =>
            `${route.padEnd(48)} ${ROLES.map((r) => String(byRole.get(r) ?? 0).padStart(9)).join(' ')}  ${[
              ...(statuses.get(route) ?? new Map<number, number>()).entries(),
            ]
              .sort(([a], [b]) => a - b)
              .map(([st, n]) => `${st}:${n}`)
              .join(' ')}`,
        ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    expect([...failures.values()], [...failures.values()].join('\n\n')).toEqual([]);
    // Every operation was called by every role.
    for (const op of ops) expect(counts.get(`${op.method} ${op.path}`)?.size, op.path).toBe(ROLES.length);
  }, 180_000);
});
