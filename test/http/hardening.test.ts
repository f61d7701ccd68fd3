import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../bin/local/openapi.js';
import { clock } from '../../functions/core/clock.js';
import { endpoint } from '../../functions/core/http.js';
import { routes } from '../../functions/routes.js';
import { raiseAlertOnce } from '../../functions/store/alerts.js';
import { checkAgainstContract } from '../support/contract.js';
import { call, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const api = <T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
) => call<T>(server.url(), method, path, options);

type ErrorBody = { error: { code: string; message: string; details?: { path: string; message: string }[] } };
type AlertBody = { id: string; acked_by: string | null };
type Page = { items: AlertBody[]; total: number };

let admin: string;
beforeAll(async () => {
  admin = await tokenFor('admin');
});

/** A reseller with a VLAN of `sites` sites, and its token. */
async function resellerWithVlan(name: string, sites = 5) {
  const resellerId = randomUUID();
  const r = await api<{ nas_id: string; vlan_id: number }>('POST', '/api/v1/network/vlan/allocate', {
    token: admin,
    body: { reseller_id: resellerId, reseller_name: name, site_count: sites },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { resellerId, ...r.body, token: await tokenFor('reseller', { resellerId }) };
}

describe('numbers DynamoDB cannot store', () => {
  it.each([
    ['5e-324', 5e-324],
    ['1e-200', 1e-200],
  ])('a site at latitude %s (number underflow) is stored at 0, not answered 500', async (_n, latitude) => {
    const r = await resellerWithVlan(`Underflow ${randomUUID().slice(0, 8)}`);
    const site = await api<{ latitude: number; longitude: number }>('POST', '/api/v1/network/sites', {
      token: r.token,
      body: { reseller_id: r.resellerId, site_number: 1, city: 'Daloa', latitude, longitude: -latitude },
    });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    expect(site.body).toMatchObject({ latitude: 0, longitude: 0 });
  });

  it('keeps coordinates to 7 decimal places', async () => {
    const r = await resellerWithVlan(`Decimals ${randomUUID().slice(0, 8)}`);
    const site = await api<{ latitude: number; longitude: number }>('POST', '/api/v1/network/sites', {
      token: r.token,
      body: {
        reseller_id: r.resellerId,
        site_number: 2,
        city: 'Man',
        latitude: 7.412345678,
        longitude: -7.55,
      },
    });
    expect(site.status).toBe(201);
    expect(site.body).toMatchObject({ latitude: 7.4123457, longitude: -7.55 });
  });

  it("answers DynamoDB's number ValidationException with 400 ERR_VALIDATION, never 500", async () => {
    const underflow = Object.assign(
      new Error('Number underflow. Attempting to store a number with magnitude smaller than supported range'),
      { name: 'ValidationException' },
    );
    const handler = endpoint('GET /api/v1/forfaits', {}, async () => {
      throw underflow;
    });
    const event = {
      headers: {},
      requestContext: { requestId: 'r', http: { method: 'GET' } },
    } as unknown as APIGatewayProxyEventV2;
    const res = await handler(event, { awsRequestId: 'r' } as Context);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body as string).error.code).toBe('ERR_VALIDATION');
    // Any other ValidationException stays an internal error.
    const other = endpoint('GET /api/v1/forfaits', {}, async () => {
      throw Object.assign(new Error('One or more parameter values were invalid'), {
        name: 'ValidationException',
      });
    });
    expect((await other(event, { awsRequestId: 'r' } as Context)).statusCode).toBe(500);
  });
});

describe('the local host', () => {
  it('answers a malformed percent-encoding in a path (/api/v1/branding/%E0%A4%A) 400 ERR_VALIDATION, not 500', async () => {
    for (const path of ['/api/v1/branding/%E0%A4%A', '/api/v1/network/sites/%zz', '/portal/%']) {
      const r = await api<ErrorBody>('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code).toBe('ERR_VALIDATION');
    }
  });

  it('names the allowed methods in the Allow header of a 405 (RFC 9110), HEAD and OPTIONS included', async () => {
    const put = await api<ErrorBody>('PUT', '/api/v1/forfaits', { body: {} });
    expect(put.status).toBe(405);
    expect(put.body.error.code).toBe('ERR_METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')).toBe('GET');
    const branding = await fetch(`${server.url()}/api/v1/branding/access_x`, { method: 'DELETE' });
    expect(branding.status).toBe(405);
    expect(branding.headers.get('allow')).toBe('GET, PUT');
    const head = await fetch(`${server.url()}/api/v1/forfaits`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
  });

  it('sends no CORS header: a cross-origin preflight is refused (405) and nothing grants an origin', async () => {
    const preflight = await fetch(`${server.url()}/api/v1/payments/initiate`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(`${server.url()}/api/v1/forfaits`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('ids and names', () => {
  it("takes an upper-case spelling of one's own reseller id as one's own (no 403 on one's own id)", async () => {
    const r = await resellerWithVlan(`Upper ${randomUUID().slice(0, 8)}`);
    const upper = r.resellerId.toUpperCase();
    const sites = await api('GET', `/api/v1/network/sites/${upper}`, { token: r.token });
    expect(sites.status, JSON.stringify(sites.body)).toBe(200);
    const vouchers = await api('GET', `/api/v1/vouchers?reseller_id=${upper}`, { token: r.token });
    expect(vouchers.status, JSON.stringify(vouchers.body)).toBe(200);
    const site = await api<{ reseller_id: string }>('POST', '/api/v1/network/sites', {
      token: r.token,
      body: { reseller_id: upper, site_number: 3, city: 'Bouaké', latitude: 7.69, longitude: -5.03 },
    });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    expect(site.body.reseller_id).toBe(r.resellerId);
  });

  it('refuses reseller_name "Ⱦ£" saying no letter folds to a-z, not that it has no letters', async () => {
    const r = await api<ErrorBody>('POST', '/api/v1/network/vlan/allocate', {
      token: admin,
      body: { reseller_id: randomUUID(), reseller_name: 'Ⱦ£' },
    });
    expect(r.status).toBe(400);
    const detail = r.body.error.details?.find((d) => d.path === 'body.reseller_name');
    expect(detail?.message).toContain('a-z');
    expect(detail?.message).not.toMatch(/must contain letters or digits/);
  });

  it.each([
    ['city', '\u202Egnp.exe Abidjan'],
    ['city', 'Abidjan\u2066'],
    ['city', 'Abi\u200Fdjan'],
  ])('refuses a bidirectional control character in the %s (SSID spoofing: %j)', async (_f, city) => {
    const r = await resellerWithVlan(`Bidi ${randomUUID().slice(0, 8)}`);
    const site = await api<ErrorBody>('POST', '/api/v1/network/sites', {
      token: r.token,
      body: { reseller_id: r.resellerId, site_number: 4, city, latitude: 5.3, longitude: -4 },
    });
    expect(site.status).toBe(400);
    expect(site.body.error.details?.[0]?.path).toBe('body.city');
  });

  it('refuses a bidirectional override in a reseller name (its SSID would read backwards)', async () => {
    const r = await api<ErrorBody>('POST', '/api/v1/network/vlan/allocate', {
      token: admin,
      body: { reseller_id: randomUUID(), reseller_name: 'Wifi \u202Eeerf' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details?.[0]?.path).toBe('body.reseller_name');
  });
});

describe('logo_url', () => {
  it.each([
    ['a quote and an event handler', 'https://cdn.example.com/x.png"onerror="alert(1)'],
    ['a single quote and an event handler', "https://cdn.example.com/x.png'onerror='alert(1)"],
    ['a tag', 'https://cdn.example.com/<script>alert(1)</script>'],
    ['the backslash parser differential', 'https://evil.example\\@169.254.169.254/'],
  ])('refuses a logo_url with %s (attribute breakout / SSRF)', async (_why, logo_url) => {
    const r = await resellerWithVlan(`Logo ${randomUUID().slice(0, 8)}`);
    const put = await api<ErrorBody>('PUT', `/api/v1/branding/${r.nas_id}`, {
      token: r.token,
      body: { logo_url },
    });
    expect(put.status).toBe(400);
    expect(put.body.error.details?.[0]?.path).toBe('body.logo_url');
  });

  it('stores and answers a logo_url as the URL parser serialises it', async () => {
    const r = await resellerWithVlan(`Logo ${randomUUID().slice(0, 8)}`);
    const put = await api<{ logo_url: string }>('PUT', `/api/v1/branding/${r.nas_id}`, {
      token: r.token,
      body: { logo_url: 'https://CDN.Example.com:443/img/logo.png?v=2' },
    });
    expect(put.status).toBe(200);
    expect(put.body.logo_url).toBe('https://cdn.example.com/img/logo.png?v=2');
  });
});

describe('query strings', () => {
  it('refuses an unknown query parameter on every route that lists its own (the portal page takes any)', async () => {
    const tokens = {
      none: undefined,
      jwt: admin,
      reseller: admin,
      admin,
      agent: admin,
      webhook: undefined,
      // FreeRADIUS's bearer.
      radius: process.env.RADIUS_API_SECRET,
      // No edge row is a GET or a DELETE.
      edge: undefined,
      signature: undefined,
    };
    let checked = 0;
    for (const r of routes) {
      if (r.method !== 'GET' && r.method !== 'DELETE') continue;
      if (r.path === '/portal/{nas_id}') continue;
      const path = `${r.path
        .replace('{reseller_id}', randomUUID())
        .replace('{id}', randomUUID())
        .replace('{vlan_id}', '9999')
        .replace('{nas_id}', 'access_none')
        .replace('{router_id}', 'rtr_none')
        .replace('{file}', 'none.js')}?smuggled=1`;
      const res = await api<ErrorBody>(r.method, path, { token: tokens[r.auth] });
      expect(res.status, `${r.method} ${path}`).toBe(400);
      expect(res.body.error.code).toBe('ERR_VALIDATION');
      expect(JSON.stringify(res.body.error.details), `${r.method} ${path}`).toContain('smuggled');
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
    const portal = await fetch(`${server.url()}/portal/access_none?mac=aa:bb&link-login=x`);
    expect(portal.status).toBe(404);
  });
});

describe('alerts and a released hotspot name', () => {
  it("a reseller who inherits a released hotspot name does not see the previous owner's alerts", async () => {
    const name = `Heir ${randomUUID().slice(0, 8)}`;
    const first = await resellerWithVlan(name);
    const raise = async () => {
      const a = await raiseAlertOnce({
        type: 'SLA_DEGRADED',
        severity: 'P1',
        site: first.nas_id,
        ts: clock.iso(),
        message: '3 canary runs in a row failed',
      });
      return a?.id;
    };
    const old = await raise();
    expect(old).toBeDefined();
    const seenByFirst = await api<Page>('GET', '/api/v1/alerts', { token: first.token });
    expect(seenByFirst.body.items.map((a) => a.id)).toContain(old);

    expect((await api('DELETE', `/api/v1/network/vlans/${first.vlan_id}`, { token: admin })).status).toBe(
      204,
    );
    const heir = await resellerWithVlan(name);
    expect(heir.nas_id).toBe(first.nas_id);

    const seenByHeir = await api<Page>('GET', '/api/v1/alerts?status=all', { token: heir.token });
    expect(seenByHeir.body.items.map((a) => a.id)).not.toContain(old);
    const ack = await api<ErrorBody>('PUT', `/api/v1/alerts/${old}/ack`, { token: heir.token, body: {} });
    expect(ack.status).toBe(403);
    // The operator still has the history.
    const seenByAdmin = await api<Page>('GET', '/api/v1/alerts?page_size=100', { token: admin });
    expect(seenByAdmin.body.items.map((a) => a.id)).toContain(old);
    // The release closed the old incident: the heir's first degradation raises its own alert.
    const fresh = await raise();
    expect(fresh).toBeDefined();
    const now = await api<Page>('GET', '/api/v1/alerts', { token: heir.token });
    expect(now.body.items.map((a) => a.id)).toEqual([fresh]);
  });
});

describe('the contract is exact', () => {
  it('fails on an undocumented status, any status, and on an undocumented code for a documented one', async () => {
    // 409 is not a status of GET /forfaits at all.
    await expect(
      checkAgainstContract('GET', '/api/v1/forfaits', 409, 'application/json', {
        error: { code: 'ERR_CONFLICT', message: 'x' },
      }),
    ).rejects.toThrow('not documented');
    // 404 is documented for the status route, but not with this code.
    await expect(
      checkAgainstContract('GET', `/api/v1/payments/${randomUUID()}/status`, 404, 'application/json', {
        error: { code: 'ERR_NOT_FOUND', message: 'x' },
      }),
    ).resolves.toBeUndefined();
    await expect(
      checkAgainstContract('POST', '/api/v1/auth/otp/verify', 401, 'application/json', {
        error: { code: 'ERR_UNAUTHENTICATED', message: 'x' },
      }),
    ).rejects.toThrow('not one of the codes documented');
    // A 5xx the route cannot answer, and a status without a body answered with one.
    await expect(
      checkAgainstContract('GET', '/portal/assets/x.js', 503, 'application/json', {
        error: { code: 'ERR_UNAVAILABLE', message: 'x' },
      }),
    ).rejects.toThrow('not documented');
    // An unrouted method is a 405, an unknown path a 404 ERR_NOT_FOUND.
    await expect(
      checkAgainstContract('PATCH', '/api/v1/forfaits', 404, 'application/json', {
        error: { code: 'ERR_NOT_FOUND', message: 'x' },
      }),
    ).rejects.toThrow('405');
  });

  it('lists, for every operation, the statuses the server answers with their codes', async () => {
    const doc = (await buildOpenApi()) as {
      paths: Record<string, Record<string, { responses: Record<string, { 'x-error-codes'?: string[] }> }>>;
    };
    const codes = (path: string, method: string, status: number) =>
      doc.paths[path]?.[method]?.responses[String(status)]?.['x-error-codes'];
    expect(codes('/api/v1/auth/otp/verify', 'post', 401)).toEqual(['ERR_OTP_INVALID', 'ERR_OTP_EXPIRED']);
    expect(codes('/api/v1/payments/initiate', 'post', 404)).toEqual(['ERR_NOT_FOUND']);
    expect(codes('/api/v1/payments/initiate', 'post', 502)).toEqual(['ERR_UPSTREAM']);
    expect(codes('/api/v1/payments/webhook', 'post', 404)).toEqual(['ERR_NOT_FOUND']);
    expect(codes('/api/v1/vouchers/redeem', 'post', 404)).toEqual(['ERR_NOT_FOUND']);
    expect(codes('/api/v1/vouchers/generate', 'post', 404)).toEqual(['ERR_NOT_FOUND']);
    expect(codes('/api/v1/vouchers/export', 'get', 404)).toEqual(['ERR_NOT_FOUND']);
    expect(codes('/api/v1/network/sites', 'post', 404)).toEqual(['ERR_NOT_FOUND']);
    expect(codes('/api/v1/network/vlan/allocate', 'post', 404)).toEqual(['ERR_NOT_FOUND']);
    // The RADIUS data plane is not the public API's (the front's service serves it on loopback).
    expect(doc.paths['/api/v1/radius/accounting']).toBeUndefined();
    expect(codes('/api/v1/forfaits', 'get', 503)).toEqual(['ERR_UNAVAILABLE']);
    expect(codes('/portal/assets/{file}', 'get', 503)).toBeUndefined();
  });

  it('carries the bounds, patterns and rules the server checks (page_size=0 is outside both)', async () => {
    const doc = (await buildOpenApi()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const params = doc.paths['/api/v1/vouchers']?.get?.parameters as {
      name: string;
      schema: Record<string, unknown>;
    }[];
    expect(params.find((p) => p.name === 'page_size')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect((await api('GET', '/api/v1/forfaits?page_size=0')).status).toBe(400);
    type Body = {
      content: { 'application/json': { schema: { properties: Record<string, Record<string, unknown>> } } };
    };
    const none: Body = { content: { 'application/json': { schema: { properties: {} } } } };
    const body = (path: string, method: string) =>
      ((doc.paths[path]?.[method]?.requestBody ?? none) as Body).content['application/json'].schema
        .properties;
    const msisdn = body('/api/v1/auth/otp/request', 'post').msisdn as { pattern: string };
    expect(new RegExp(msisdn.pattern).test('+225 07 12 34 56 78')).toBe(true);
    expect(new RegExp(msisdn.pattern).test('hello')).toBe(false);
    const branding = body('/api/v1/branding/{nas_id}', 'put');
    expect(branding.logo_url?.description).toContain('public host name');
    expect(branding.custom_css?.description).toContain('@import');
    expect(body('/api/v1/network/sites', 'post').site_number?.description).toContain('site_count');
    expect(body('/api/v1/network/dns/status', 'put').last_update?.description).toContain('future');
    expect(body('/api/v1/network/sites', 'post').city?.pattern).toBeDefined();
  });
});
