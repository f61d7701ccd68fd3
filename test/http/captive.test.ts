import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { Access } from '../../functions/store/access-codes.js';
import { Session } from '../../functions/store/sessions.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, useLocalServer } from '../support/http.js';

/** RFC 8908's Captive Portal API through the local server, on DynamoDB Local. */
const server = useLocalServer({ trustForwardedFor: true });
/** The hotspot's router's public address: its devices reach the API from it (NAT). */
const ROUTER_IP = '198.51.100.7';
const get = (path: string, from = ROUTER_IP) =>
  call(server.url(), 'GET', path, { headers: { 'x-forwarded-for': from } });

async function online(nasId: string, resellerId: string, mac: string, dataMb: number, usedBytes: number) {
  const code = randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase();
  const now = Date.now();
  await Access.put({
    code,
    reseller_id: resellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: SEED_FORFAITS[0]?.id as string,
    offer: { duration_hours: 1, data_limit_mb: dataMb, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
    created_at: new Date(now).toISOString(),
    started_at: new Date(now - 600_000).toISOString(),
    expires_at: new Date(now + 3000_000).toISOString(),
    used_bytes: usedBytes,
    devices: { [`${nasId}/${mac}`]: Math.floor(now / 1000) + 600 },
    devices_version: 1,
  });
  await Session.put({
    id: randomUUID(),
    code,
    nas_id: nasId,
    reseller_id: resellerId,
    // As accounting writes it (functions/radius/attributes.ts, deviceKey), from the router's address.
    device: `${nasId}/${mac}`,
    nas_ip: ROUTER_IP,
    status: 'open',
    total_bytes: usedBytes,
    session_time_s: 600,
    started_at: new Date(now - 600_000).toISOString(),
    last_report_at: new Date(now).toISOString(),
  });
  return code;
}

describe('the captive portal API (RFC 8908)', () => {
  it('tells an unknown device it is captive and where the portal is, as application/captive+json', async () => {
    const nasId = await hotspotOf(randomUUID(), 'access_captive');
    for (const path of [`/api/v1/captive/${nasId}`, `/api/v1/captive/${nasId}?mac=02:00:00:00:00:01`]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/captive+json');
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.body).toEqual({
        captive: true,
        'user-portal-url': expect.stringMatching(new RegExp(`^https?://[^/]+/portal/${nasId}$`)),
      });
    }
  });

  it('tells a device online its seconds and bytes remaining, whatever the way its MAC is written', async () => {
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId, 'access_captive');
    await online(nasId, resellerId, 'AA:BB:CC:00:11:22', 100, 40 * 1024 * 1024);
    for (const mac of ['AA:BB:CC:00:11:22', 'aa-bb-cc-00-11-22', 'aabb.cc00.1122']) {
      const res = await get(`/api/v1/captive/${nasId}?mac=${encodeURIComponent(mac)}`);
      expect(res.status).toBe(200);
      const body = res.body as Record<string, unknown>;
      expect(body).toMatchObject({
        captive: false,
        'user-portal-url': expect.stringMatching(new RegExp(`^https?://[^/]+/portal/${nasId}$`)),
        'bytes-remaining': 60 * 1024 * 1024,
        'can-extend-session': true,
      });
      // 50 minutes left, give or take the test's own seconds.
      expect(body['seconds-remaining']).toBeGreaterThan(2990);
      expect(body['seconds-remaining']).toBeLessThanOrEqual(3000);
    }
    // Another hotspot does not know that device.
    const elsewhere = await hotspotOf(resellerId, 'access_captive');
    expect((await get(`/api/v1/captive/${elsewhere}?mac=AA:BB:CC:00:11:22`)).body).toMatchObject({
      captive: true,
    });
  });

  it('L2: tells whether a MAC is online, and its time and data, only to a request from behind its router', async () => {
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId, 'access_captive');
    await online(nasId, resellerId, 'AA:BB:CC:00:11:44', 100, 0);
    const unknown = (await get(`/api/v1/captive/${nasId}?mac=AA:BB:CC:00:11:45`, '203.0.113.9')).body;
    for (const from of ['203.0.113.9', '2001:db8::9', '::ffff:198.51.100.8']) {
      const asked = await get(`/api/v1/captive/${nasId}?mac=AA:BB:CC:00:11:44`, from);
      // The answer an unknown device gets, word for word.
      expect(asked.body).toEqual(unknown);
      expect(asked.body).toEqual({ captive: true, 'user-portal-url': expect.any(String) });
    }
    // The router's address however written (IPv4-mapped): the device itself.
    const itself = await get(`/api/v1/captive/${nasId}?mac=AA:BB:CC:00:11:44`, `::ffff:${ROUTER_IP}`);
    expect(itself.body).toMatchObject({ captive: false, 'bytes-remaining': 100 * 1024 * 1024 });
  });

  it('leaves bytes-remaining out for a forfait without a data cap', async () => {
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId, 'access_captive');
    await online(nasId, resellerId, 'AA:BB:CC:00:11:33', 0, 5_000_000);
    const body = (await get(`/api/v1/captive/${nasId}?mac=AA:BB:CC:00:11:33`)).body as Record<
      string,
      unknown
    >;
    expect(body.captive).toBe(false);
    expect('bytes-remaining' in body).toBe(false);
  });

  it('answers 404 for an unknown hotspot and 400 for an unknown parameter', async () => {
    expect((await get('/api/v1/captive/access_nowhere_0000')).status).toBe(404);
    expect((await get('/api/v1/captive/access_nowhere_0000?ip=1.2.3.4')).status).toBe(400);
  });
});
