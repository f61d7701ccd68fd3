import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
type Err = { error: { code: string } };
const tokens = { admin: '', owner: '', other: '', subscriber: '' };
const ownerId = randomUUID();
const otherId = randomUUID();
const api = (
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers?: Record<string, string>,
) =>
  call(server.url(), method, path, {
    ...(token ? { token } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });

let vlan: { vlan_id: number; subnet: string; nas_id: string; ssid: string };

beforeAll(async () => {
  tokens.admin = await tokenFor('admin');
  tokens.owner = await tokenFor('reseller', { resellerId: ownerId });
  tokens.other = await tokenFor('reseller', { resellerId: otherId });
  tokens.subscriber = await tokenFor('subscriber');
  const res = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, {
    reseller_id: ownerId,
    reseller_name: 'Chez Awa Wifi',
    site_count: 3,
  });
  expect(res.status).toBe(201);
  vlan = res.body as typeof vlan;
  await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, {
    reseller_id: otherId,
    reseller_name: 'Other Spot',
    site_count: 1,
  });
});

describe('POST /network/vlan/allocate', () => {
  it('answers the spec shape', () => {
    expect(vlan).toEqual({
      vlan_id: expect.any(Number),
      subnet: `10.${vlan.vlan_id}.0.0/24`,
      nas_id: 'access_chez_awa_wifi',
      ssid: 'ACCESS Chez Awa Wifi',
    });
  });

  it('answers 409 ERR_DUPLICATE_NAS_ID for a reseller or a slug that has one', async () => {
    const again = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, { reseller_id: ownerId });
    expect(again.status).toBe(409);
    expect((again.body as Err).error.code).toBe('ERR_DUPLICATE_NAS_ID');
    const sameSlug = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, {
      reseller_id: randomUUID(),
      reseller_name: 'CHEZ AWA — WIFI',
      site_count: 1,
    });
    expect(sameSlug.status).toBe(409);
  });

  it('takes a site count of 1 when only the name is given', async () => {
    const id = randomUUID();
    const r = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, {
      reseller_id: id,
      reseller_name: 'Boutique Élégance',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ nas_id: 'access_boutique_elegance', ssid: 'ACCESS Boutique Élégance' });
    const mine = await api('GET', '/api/v1/network/vlans', await tokenFor('reseller', { resellerId: id }));
    expect(mine.body).toMatchObject({ total: 1, items: [{ reseller_id: id, site_count: 1 }] });
    const vlanId = (r.body as { vlan_id: number }).vlan_id;
    expect((await api('DELETE', `/api/v1/network/vlans/${vlanId}`, tokens.admin)).status).toBe(204);
  });

  it('answers 404 for the id-only variant of an unknown reseller', async () => {
    const r = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, { reseller_id: randomUUID() });
    expect(r.status).toBe(404);
  });

  it.each([
    [{ reseller_id: 'x', reseller_name: 'A', site_count: 1 }],
    [{ reseller_id: randomUUID(), reseller_name: '', site_count: 1 }],
    [{ reseller_id: randomUUID(), reseller_name: 'A', site_count: 0 }],
    [{ reseller_id: randomUUID(), reseller_name: 'A', site_count: 1, vlan_id: 5 }],
    [{ reseller_id: randomUUID(), reseller_name: '***', site_count: 1 }],
  ])('answers 400 to %j', async (body) => {
    const r = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, body);
    expect(r.status).toBe(400);
    expect((r.body as Err).error.code).toBe('ERR_VALIDATION');
  });

  it('is for admins only', async () => {
    const body = { reseller_id: randomUUID(), reseller_name: 'Sneaky', site_count: 1 };
    expect((await api('POST', '/api/v1/network/vlan/allocate', tokens.owner, body)).status).toBe(403);
    expect((await api('POST', '/api/v1/network/vlan/allocate', tokens.subscriber, body)).status).toBe(403);
  });
});

describe('GET /network/vlans', () => {
  it('shows a reseller only its own VLAN, an admin all, a subscriber nothing', async () => {
    const own = await api('GET', '/api/v1/network/vlans', tokens.owner);
    expect(own.status).toBe(200);
    const body = own.body as { items: { reseller_id: string }[]; total: number; page: number; pages: number };
    expect(body.total).toBe(1);
    expect(body.items[0]).toMatchObject({
      reseller_id: ownerId,
      reseller_name: 'Chez Awa Wifi',
      created_at: expect.any(String),
    });
    const all = await api('GET', '/api/v1/network/vlans?page_size=1', tokens.admin);
    expect((all.body as { total: number; pages: number }).total).toBe(2);
    expect((all.body as { pages: number }).pages).toBe(2);
    expect((await api('GET', '/api/v1/network/vlans', tokens.subscriber)).status).toBe(403);
  });
});

describe('sites', () => {
  it('creates a site with the spec shape, once per site number', async () => {
    const body = { reseller_id: ownerId, site_number: 1, city: 'Bouaké', latitude: 7.69, longitude: -5.03 };
    const r = await api('POST', '/api/v1/network/sites', tokens.owner, body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      site_id: expect.any(String),
      reseller_id: ownerId,
      nas_id: 'access_chez_awa_wifi_s1',
      ssid: 'ACCESS Chez Awa Wifi Bouaké',
      ap_ip: `10.${vlan.vlan_id}.0.2`,
    });
    const again = await api('POST', '/api/v1/network/sites', tokens.admin, body);
    expect(again.status).toBe(409);
    expect((again.body as Err).error.code).toBe('ERR_CONFLICT');
  });

  it('refuses a site number beyond the site count, and bad coordinates', async () => {
    const base = { reseller_id: ownerId, site_number: 2, city: 'Abidjan', latitude: 5.3, longitude: -4.0 };
    expect(
      (await api('POST', '/api/v1/network/sites', tokens.owner, { ...base, site_number: 4 })).status,
    ).toBe(400);
    expect((await api('POST', '/api/v1/network/sites', tokens.owner, { ...base, latitude: 91 })).status).toBe(
      400,
    );
    expect(
      (await api('POST', '/api/v1/network/sites', tokens.owner, { ...base, longitude: -181 })).status,
    ).toBe(400);
    expect((await api('POST', '/api/v1/network/sites', tokens.owner, { ...base, city: ' ' })).status).toBe(
      400,
    );
  });

  it('lets only the owner or an admin add or list sites', async () => {
    const body = { reseller_id: ownerId, site_number: 2, city: 'Abidjan', latitude: 5.3, longitude: -4.0 };
    expect((await api('POST', '/api/v1/network/sites', tokens.other, body)).status).toBe(403);
    expect((await api('GET', `/api/v1/network/sites/${ownerId}`, tokens.other)).status).toBe(403);
    const listed = await api('GET', `/api/v1/network/sites/${ownerId}`, tokens.admin);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, items: [{ site_number: 1, city: 'Bouaké' }] });
    expect((await api('GET', `/api/v1/network/sites/${randomUUID()}`, tokens.admin)).status).toBe(404);
    expect((await api('GET', '/api/v1/network/sites/not-a-uuid', tokens.admin)).status).toBe(400);
    expect((await api('GET', `/api/v1/network/sites/${ownerId}`, tokens.subscriber)).status).toBe(403);
    expect((await api('POST', '/api/v1/network/sites', tokens.subscriber, body)).status).toBe(403);
  });
});

describe('branding', () => {
  it('answers defaults before any update, for VLAN and site NAS ids, with cache headers', async () => {
    const r = await api('GET', `/api/v1/branding/${vlan.nas_id}`, undefined);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      nas_id: vlan.nas_id,
      reseller_name: 'Chez Awa Wifi',
      primary_color: '#0f6cbd',
      banner_rotation_seconds: 10,
      custom_css: '',
    });
    expect(r.headers.get('cache-control')).toContain('max-age=');
    expect(r.headers.get('etag')).toMatch(/^"/);
    expect((await api('GET', '/api/v1/branding/access_chez_awa_wifi_s1', undefined)).status).toBe(200);
    expect((await api('GET', '/api/v1/branding/access_nobody', undefined)).status).toBe(404);
    const odd = await api('GET', '/api/v1/branding/NOT-A-NAS-ID', undefined);
    expect(odd.status).toBe(404);
    expect((odd.body as Err).error.code).toBe('ERR_NOT_FOUND');
    expect((await api('GET', `/api/v1/branding/${vlan.nas_id}?view=everything`, undefined)).status).toBe(400);
  });

  it('answers only the four portal fields with ?view=portal', async () => {
    const r = await api('GET', `/api/v1/branding/${vlan.nas_id}?view=portal`, undefined);
    expect(Object.keys(r.body as object).sort()).toEqual([
      'logo_url',
      'nas_id',
      'primary_color',
      'reseller_name',
    ]);
  });

  it('answers 304 to a matching If-None-Match, and a new ETag after an update', async () => {
    const first = await api('GET', `/api/v1/branding/${vlan.nas_id}`, undefined);
    const etag = first.headers.get('etag') as string;
    const res = await fetch(`${server.url()}/api/v1/branding/${vlan.nas_id}`, {
      headers: { 'if-none-match': etag },
    });
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    const weak = await fetch(`${server.url()}/api/v1/branding/${vlan.nas_id}`, {
      headers: { 'if-none-match': `W/${etag}` },
    });
    expect(weak.status).toBe(304);
    await api('PUT', `/api/v1/branding/${vlan.nas_id}`, tokens.owner, { primary_color: '#aa0000' });
    const after = await api('GET', `/api/v1/branding/${vlan.nas_id}`, undefined);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('lets the owner update some fields and answers the whole record', async () => {
    const r = await api('PUT', `/api/v1/branding/${vlan.nas_id}`, tokens.owner, {
      logo_url: 'https://cdn.awa-wifi.ci/logo.png',
      banner_rotation_seconds: 30,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      logo_url: 'https://cdn.awa-wifi.ci/logo.png',
      banner_rotation_seconds: 30,
      primary_color: '#aa0000',
    });
  });

  it('answers 404 to an update of an unknown hotspot', async () => {
    const r = await api('PUT', '/api/v1/branding/access_nobody_here', tokens.admin, {
      primary_color: '#000000',
    });
    expect(r.status).toBe(404);
  });

  it('refuses another reseller (403) and a subscriber (403)', async () => {
    expect(
      (await api('PUT', `/api/v1/branding/${vlan.nas_id}`, tokens.other, { primary_color: '#000000' }))
        .status,
    ).toBe(403);
    expect(
      (await api('PUT', `/api/v1/branding/${vlan.nas_id}`, tokens.subscriber, { primary_color: '#000000' }))
        .status,
    ).toBe(403);
  });

  it.each([
    [{ primary_color: 'red' }],
    [{ logo_url: 'http://cdn.example.com/x.png' }],
    [{ logo_url: 'https://192.168.1.1/x.png' }],
    [{ banner_rotation_seconds: 2 }],
    [{ banner_rotation_seconds: 601 }],
    [{ custom_css: '@import url(x.css);' }],
    [{ custom_css: '.a{background:url(https://evil.example/x)}' }],
    [{ logo_url: 'https://localhost/x.png' }],
    [{ logo_url: 'https://[::1]/x.png' }],
    [{ secondary_color: '#12345' }],
    [{ banner_rotation_seconds: 10.5 }],
    [{ custom_css: `.a{}${' '.repeat(10 * 1024)}` }],
    [{ custom_css: '.a{width:expression(alert(1))}' }],
    [{ custom_css: '.a{background:url(javascript:alert(1))}' }],
    [{ custom_css: '.a{}</style><script>alert(1)</script>' }],
    [{}],
    [{ reseller_name: 'Renamed' }],
  ])('answers 400 to %j and changes nothing', async (body) => {
    const before = await api('GET', `/api/v1/branding/${vlan.nas_id}`, undefined);
    const r = await api('PUT', `/api/v1/branding/${vlan.nas_id}`, tokens.owner, body);
    expect(r.status).toBe(400);
    expect((r.body as Err).error.code).toBe('ERR_VALIDATION');
    expect((await api('GET', `/api/v1/branding/${vlan.nas_id}`, undefined)).body).toEqual(before.body);
  });
});

describe('DNS status', () => {
  it('answers defaults before any report, then what the DNS host reports', async () => {
    const before = await api('GET', '/api/v1/network/dns/status', tokens.subscriber);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      unbound_healthy: false,
      blocklist_count: 0,
      sinkhole_ip: '0.0.0.0',
      last_update: '1970-01-01T00:00:00.000Z',
    });
    const report = {
      blocklist_count: 152_340,
      sinkhole_ip: '10.0.0.53',
      last_update: '2026-11-22T10:00:00Z',
    };
    expect((await api('PUT', '/api/v1/network/dns/status', tokens.owner, report)).status).toBe(403);
    const put = await api('PUT', '/api/v1/network/dns/status', tokens.admin, report);
    expect(put.status).toBe(200);
    const after = await api('GET', '/api/v1/network/dns/status', tokens.owner);
    expect(after.body).toMatchObject({
      blocklist_count: 152_340,
      sinkhole_ip: '10.0.0.53',
      last_update: '2026-11-22T10:00:00.000Z',
    });
  });

  it('ignores a report older than the stored one, and refuses a bad one', async () => {
    await api('PUT', '/api/v1/network/dns/status', tokens.admin, {
      blocklist_count: 1,
      sinkhole_ip: '10.0.0.9',
      last_update: '2020-01-01T00:00:00Z',
    });
    expect(
      ((await api('GET', '/api/v1/network/dns/status', tokens.admin)).body as { sinkhole_ip: string })
        .sinkhole_ip,
    ).toBe('10.0.0.53');
    const bad = await api('PUT', '/api/v1/network/dns/status', tokens.admin, {
      blocklist_count: -1,
      sinkhole_ip: '999.1.1.1',
      last_update: 'yesterday',
    });
    expect(bad.status).toBe(400);
  });
});

describe('gateway rules and release', () => {
  it('lists the default rules of a VLAN, all rules without a filter, and 400 for a bad filter', async () => {
    const one = await api('GET', `/api/v1/network/gateway/rules?vlan=${vlan.vlan_id}`, tokens.admin);
    expect(one.status).toBe(200);
    const items = (one.body as { items: { rule_type: string; vlan: number; id: string; active: boolean }[] })
      .items;
    expect(items.map((r) => r.rule_type)).toEqual(['DENY_DEFAULT', 'ALLOW_DNS_SINKHOLE', 'ALLOW_INTERNET']);
    expect(items.every((r) => r.vlan === vlan.vlan_id && r.active)).toBe(true);
    const all = await api('GET', '/api/v1/network/gateway/rules', tokens.admin);
    expect((all.body as { items: unknown[] }).items).toHaveLength(6);
    expect((await api('GET', '/api/v1/network/gateway/rules?vlan=abc', tokens.admin)).status).toBe(400);
    expect((await api('GET', '/api/v1/network/gateway/rules?vlan=1.5', tokens.admin)).status).toBe(400);
    const none = await api('GET', '/api/v1/network/gateway/rules?vlan=99999', tokens.admin);
    expect(none).toMatchObject({ status: 200, body: { items: [] } });
    expect((await api('GET', '/api/v1/network/gateway/rules', tokens.owner)).status).toBe(403);
  });

  it('releases a VLAN with its sites, NAS ids and rules', async () => {
    const r = await api('DELETE', `/api/v1/network/vlans/${vlan.vlan_id}`, tokens.admin);
    expect(r.status).toBe(204);
    expect((await api('GET', `/api/v1/branding/${vlan.nas_id}`, undefined)).status).toBe(404);
    expect((await api('GET', '/api/v1/branding/access_chez_awa_wifi_s1', undefined)).status).toBe(404);
    const rules = await api('GET', `/api/v1/network/gateway/rules?vlan=${vlan.vlan_id}`, tokens.admin);
    expect((rules.body as { items: unknown[] }).items).toEqual([]);
    expect((await api('DELETE', `/api/v1/network/vlans/${vlan.vlan_id}`, tokens.admin)).status).toBe(404);
    expect((await api('DELETE', '/api/v1/network/vlans/abc', tokens.admin)).status).toBe(400);
    expect((await api('GET', `/api/v1/network/sites/${ownerId}`, tokens.owner)).body).toEqual({
      items: [],
      total: 0,
    });
    const again = await api('POST', '/api/v1/network/vlan/allocate', tokens.admin, { reseller_id: ownerId });
    expect(again.status).toBe(201);
    expect((again.body as { vlan_id: number }).vlan_id).toBe(vlan.vlan_id);
  });
});
