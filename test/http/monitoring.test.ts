import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { CHECK_NAMES } from '../../functions/monitoring/checks/types.js';
import { closeIncident, raiseAlertOnce } from '../../functions/store/alerts.js';
import { type CanaryRun, countRunInDay, putRun, recordLatest } from '../../functions/store/canary.js';
import { giveSite } from '../integration/monitoring-fixtures.js';
import { call, loginAs, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
/** The `sub` claim of a session token. */
const subjectOf = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;
const api = <T = Record<string, unknown>>(
  method: string,
  path: string,
  options?: Parameters<typeof call>[3],
) => call<T>(server.url(), method, path, options);

type ErrorBody = { error: { code: string; message: string } };
type AlertBody = {
  id: string;
  site: string;
  acked: boolean;
  acked_by: string | null;
  acked_at: string | null;
};
type PageBody = { items: AlertBody[]; total: number; page: number; pages: number };

let admin: string;
let owner: { token: string; resellerId: string };
let other: string;
let subscriber: string;

async function raise(site: string): Promise<string> {
  const alert = await raiseAlertOnce({
    type: 'SLA_DEGRADED',
    severity: 'P1',
    site,
    ts: clock.iso(),
    message: '3 canary runs in a row failed (down): radius_auth',
  });
  await closeIncident(site, 'SLA_DEGRADED');
  if (!alert) throw new Error('not raised');
  return alert.id;
}

/** Records a canary run as the latest one, with an operator detail that must not leak. */
async function recordRun(failing: string[]): Promise<CanaryRun> {
  const run: CanaryRun = {
    id: randomUUID(),
    at: clock.iso(),
    overall_status: failing.length === 0 ? 'healthy' : failing.includes('radius_auth') ? 'down' : 'degraded',
    tests: CHECK_NAMES.map((name) => ({
      name,
      success: !failing.includes(name),
      latency_ms: 42,
      ...(failing.includes(name)
        ? { error: 'timeout', detail: 'no answer from 10.20.0.5:1812 within 3000 ms' }
        : {}),
    })),
  };
  await putRun(run);
  await countRunInDay(run);
  await recordLatest(run, failing.length > 0);
  return run;
}

beforeAll(async () => {
  admin = (await loginAs(server.url(), 'admin')).token;
  owner = await loginAs(server.url(), 'reseller');
  other = (await loginAs(server.url(), 'reseller')).token;
  subscriber = await tokenFor('subscriber');
  await giveSite(owner.resellerId, 'access_http_owner');
});

describe('GET /api/v1/canary/status', () => {
  it('answers 401 without a token', async () => {
    const r = await api<ErrorBody>('GET', '/api/v1/canary/status');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('ERR_UNAUTHENTICATED');
  });

  it('answers unknown before the first run', async () => {
    const r = await api('GET', '/api/v1/canary/status', { token: subscriber });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ last_run: null, consecutive_fails: 0, overall_status: 'unknown', tests: [] });
  });

  it('answers the latest run: five named checks with success and latency, the streak and the status', async () => {
    await recordRun([]);
    const run = await recordRun(['portal_access']);
    const r = await api<{
      last_run: string;
      consecutive_fails: number;
      overall_status: string;
      tests: Record<string, unknown>[];
    }>('GET', '/api/v1/canary/status', { token: subscriber });
    expect(r.status).toBe(200);
    expect(r.body.last_run).toBe(run.at);
    expect(r.body.consecutive_fails).toBe(1);
    expect(r.body.overall_status).toBe('degraded');
    expect(r.body.tests.map((t) => t.name)).toEqual([...CHECK_NAMES]);
    expect(r.body.tests.find((t) => t.name === 'portal_access')).toEqual({
      name: 'portal_access',
      success: false,
      latency_ms: 42,
      error: 'timeout',
    });
    expect(JSON.stringify(r.body)).not.toContain('10.20.0.5');
  });

  it('refuses an unknown query parameter with 400', async () => {
    const r = await api<ErrorBody>('GET', '/api/v1/canary/status?verbose=1', { token: admin });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('ERR_VALIDATION');
  });
});

describe('GET /api/v1/monitoring/status (public)', () => {
  it('answers the documented shape, with a short public cache and nothing internal', async () => {
    await recordRun(['radius_auth']);
    const r = await api<{
      status: string;
      components: { name: string; status: string }[];
      updated_at: string;
    }>('GET', '/api/v1/monitoring/status');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('public, max-age=30');
    expect(Object.keys(r.body).sort()).toEqual(['components', 'status', 'updated_at']);
    expect(r.body.status).toBe('down');
    expect(r.body.components).toContainEqual({ name: 'wifi_login', status: 'down' });
    expect(r.body.components).toContainEqual({ name: 'api', status: 'operational' });
    for (const c of r.body.components) expect(Object.keys(c).sort()).toEqual(['name', 'status']);
    const text = JSON.stringify(r.body);
    for (const internal of ['10.20.0.5', 'latency', 'consecutive', 'timeout', 'radius', 'access_']) {
      expect(text).not.toContain(internal);
    }
    expect(Number.isNaN(Date.parse(r.body.updated_at))).toBe(false);
  });
});

describe('GET /api/v1/monitoring/overview', () => {
  it('answers 401 without a token', async () => {
    expect((await api('GET', '/api/v1/monitoring/overview')).status).toBe(401);
  });

  it('answers the four numbers to any logged-in caller', async () => {
    const r = await api<Record<string, number>>('GET', '/api/v1/monitoring/overview', { token: subscriber });
    expect(r.status).toBe(200);
    for (const k of ['sessions_active', 'uptime_pct', 'alerts_active', 'sla_pct'])
      expect(typeof r.body[k]).toBe('number');
    expect(r.body.uptime_pct).toBeGreaterThanOrEqual(0);
    expect(r.body.uptime_pct).toBeLessThanOrEqual(100);
    expect(r.body.sla_pct).toBeGreaterThanOrEqual(r.body.uptime_pct as number);
  });
});

describe('GET /api/v1/alerts', () => {
  it('answers 403 to a subscriber and 401 without a token', async () => {
    const r = await api<ErrorBody>('GET', '/api/v1/alerts', { token: subscriber });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('ERR_FORBIDDEN');
    expect((await api('GET', '/api/v1/alerts')).status).toBe(401);
  });

  it.each([['status=open'], ['status=ACTIVE'], ['page=0'], ['page_size=101'], ['severity=P1']])(
    'answers 400 ERR_VALIDATION to ?%s',
    async (q) => {
      const r = await api<ErrorBody>('GET', `/api/v1/alerts?${q}`, { token: admin });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('ERR_VALIDATION');
    },
  );

  it("shows an admin every alert and a reseller only its own sites'", async () => {
    const mine = await raise('access_http_owner');
    const foreign = await raise('access_http_foreign');
    const asAdmin = await api<PageBody>('GET', '/api/v1/alerts?status=active', { token: admin });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.items.map((a) => a.id)).toEqual(expect.arrayContaining([mine, foreign]));
    const asOwner = await api<PageBody>('GET', '/api/v1/alerts', { token: owner.token });
    expect(asOwner.body.items.map((a) => a.id)).toEqual([mine]);
    expect(asOwner.body).toMatchObject({ total: 1, page: 1, pages: 1 });
    const asOther = await api<PageBody>('GET', '/api/v1/alerts?status=all', { token: other });
    expect(asOther.body).toMatchObject({ items: [], total: 0 });
  });
});

describe('PUT /api/v1/alerts/{id}/ack', () => {
  it('acks once: acked, acked_by, acked_at set, a second ack changes nothing', async () => {
    const id = await raise('access_http_owner');
    const userId = randomUUID();
    const first = await api<AlertBody>('PUT', `/api/v1/alerts/${id}/ack`, {
      token: owner.token,
      body: { user_id: userId },
    });
    expect(first.status).toBe(200);
    // acked_by is the caller (the token's subject), not the body's user_id.
    expect(first.body).toMatchObject({ id, acked: true, acked_by: subjectOf(owner.token) });
    expect(first.body.acked_by).not.toBe(userId);
    expect(Number.isNaN(Date.parse(first.body.acked_at as string))).toBe(false);
    const second = await api<AlertBody>('PUT', `/api/v1/alerts/${id}/ack`, {
      token: admin,
      body: { user_id: randomUUID() },
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const acked = await api<PageBody>('GET', '/api/v1/alerts?status=acked', { token: owner.token });
    expect(acked.body.items.map((a) => a.id)).toContain(id);
    const active = await api<PageBody>('GET', '/api/v1/alerts?status=active', { token: owner.token });
    expect(active.body.items.map((a) => a.id)).not.toContain(id);
  });

  it('answers 404 ERR_NOT_FOUND for an unknown alert', async () => {
    const r = await api<ErrorBody>('PUT', `/api/v1/alerts/${randomUUID()}/ack`, {
      token: admin,
      body: { user_id: randomUUID() },
    });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('ERR_NOT_FOUND');
  });

  it.each([
    ['a malformed id', 'not-a-uuid', { user_id: '6f1c2a52-8a9e-4b7e-9d55-0c7c3d7e1a10' }],
    ['a malformed user_id', 'VALID', { user_id: 'bob' }],
    ['an unknown field', 'VALID', { user_id: '6f1c2a52-8a9e-4b7e-9d55-0c7c3d7e1a10', acked: false }],
  ])('answers 400 ERR_VALIDATION to %s', async (_name, id, body) => {
    const alertId = id === 'VALID' ? await raise('access_http_owner') : id;
    const r = await api<ErrorBody>('PUT', `/api/v1/alerts/${alertId}/ack`, { token: admin, body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('ERR_VALIDATION');
  });

  it("acks in the caller's name only: a body naming another user (acked_by spoofing) records the token's subject", async () => {
    const id = await raise('access_http_owner');
    const victim = randomUUID();
    const r = await api<AlertBody>('PUT', `/api/v1/alerts/${id}/ack`, {
      token: owner.token,
      body: { user_id: victim },
    });
    expect(r.status).toBe(200);
    expect(r.body.acked_by).toBe(subjectOf(owner.token));
    // The body may be empty: user_id is accepted for compatibility, and ignored.
    const bare = await api<AlertBody>('PUT', `/api/v1/alerts/${await raise('access_http_owner')}/ack`, {
      token: owner.token,
      body: {},
    });
    expect(bare.status).toBe(200);
    expect(bare.body.acked_by).toBe(subjectOf(owner.token));
  });

  it("answers 403 to a subscriber and to a reseller acking another reseller's alert", async () => {
    const id = await raise('access_http_owner');
    for (const token of [subscriber, other]) {
      const r = await api<ErrorBody>('PUT', `/api/v1/alerts/${id}/ack`, {
        token,
        body: { user_id: randomUUID() },
      });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('ERR_FORBIDDEN');
    }
    const still = await api<PageBody>('GET', '/api/v1/alerts?status=active', { token: admin });
    expect(still.body.items.map((a) => a.id)).toContain(id);
  });
});
