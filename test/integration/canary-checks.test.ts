import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDnsSinkhole } from '../../functions/monitoring/checks/dns.js';
import { checkApiHealth, checkDataTransfer, checkPortal } from '../../functions/monitoring/checks/http.js';
import { checkRadiusAuth } from '../../functions/monitoring/checks/radius.js';
import {
  DATA_BYTES,
  freeUdpPort,
  type Peer,
  PORTAL_MARKER,
  startFreeRadius,
  startUnbound,
  startWebPeer,
  type WebPeer,
} from '../support/peers.js';

// Each check against the real thing on loopback: Unbound, FreeRADIUS, an HTTP server.

/**
 * The wait of a check that gets its answer: how soon a busy machine answers is not what these
 * tests check (a check's own deadline is shown by the cases where nothing answers, which wait
 * less).
 */
const ANSWERED_MS = 30_000;
const SINKHOLE = '10.66.0.1';
const RADIUS_SECRET = 'canary-shared-secret-0123';
const PASSWORD = 'canary-password-4567';

let unbound: Peer;
let radius: Peer;
let web: WebPeer;

beforeAll(async () => {
  [unbound, radius, web] = await Promise.all([
    startUnbound({
      blocked: { 'blocked.canary.test': SINKHOLE, 'elsewhere.canary.test': '192.0.2.7' },
      staticZones: ['canary.test'],
    }),
    startFreeRadius({ secret: RADIUS_SECRET, users: { canary: PASSWORD } }),
    startWebPeer(),
  ]);
});

afterAll(async () => {
  await Promise.all([unbound?.stop(), radius?.stop(), web?.stop()]);
});

const dnsTarget = (over: Partial<Parameters<typeof checkDnsSinkhole>[0]> = {}) => ({
  server: `127.0.0.1:${unbound.port}`,
  name: 'blocked.canary.test',
  sinkholeIp: SINKHOLE,
  timeoutMs: ANSWERED_MS,
  ...over,
});

describe('dns_sinkhole against Unbound', () => {
  it('passes when the blocked name answers the sinkhole IP', async () => {
    const r = await checkDnsSinkhole(dnsTarget());
    expect(r).toMatchObject({ name: 'dns_sinkhole', success: true });
    expect(r.latency_ms).toEqual(expect.any(Number));
  });

  it('fails with nxdomain when the name is not on the blocklist', async () => {
    const r = await checkDnsSinkhole(dnsTarget({ name: 'not-blocked.canary.test' }));
    expect(r).toMatchObject({ success: false, error: 'nxdomain' });
  });

  it('fails with wrong_answer when the name answers another IP', async () => {
    const r = await checkDnsSinkhole(dnsTarget({ name: 'elsewhere.canary.test' }));
    expect(r).toMatchObject({ success: false, error: 'wrong_answer' });
    expect(r.detail).toContain('192.0.2.7');
  });

  it('fails when the configured sinkhole IP is not the one the resolver answers', async () => {
    const r = await checkDnsSinkhole(dnsTarget({ sinkholeIp: '10.66.0.2' }));
    expect(r).toMatchObject({ success: false, error: 'wrong_answer' });
  });

  it('fails when no resolver listens on the port', async () => {
    const r = await checkDnsSinkhole(
      dnsTarget({ server: `127.0.0.1:${await freeUdpPort()}`, timeoutMs: 700 }),
    );
    expect(r.success).toBe(false);
    expect(['refused', 'timeout']).toContain(r.error);
  });

  it('fails with not_configured when no resolver is configured', async () => {
    expect(await checkDnsSinkhole(dnsTarget({ server: '' }))).toMatchObject({
      success: false,
      error: 'not_configured',
    });
  });
});

const radiusTarget = (over: Partial<Parameters<typeof checkRadiusAuth>[0]> = {}) => ({
  host: '127.0.0.1',
  port: radius.port,
  user: 'canary',
  nasId: 'access_canary',
  timeoutMs: ANSWERED_MS,
  ...over,
});
const secrets =
  (sharedSecret = RADIUS_SECRET, password = PASSWORD) =>
  async () => ({ sharedSecret, password });

describe('radius_auth against FreeRADIUS', () => {
  it('passes on a verified Access-Accept for the canary account', async () => {
    const r = await checkRadiusAuth(radiusTarget(), secrets());
    expect(r).toMatchObject({ name: 'radius_auth', success: true });
  });

  it('fails with access_reject for a wrong password', async () => {
    const r = await checkRadiusAuth(radiusTarget(), secrets(RADIUS_SECRET, 'not-the-password'));
    expect(r).toMatchObject({ success: false, error: 'access_reject' });
  });

  it('fails with access_reject for an unknown user', async () => {
    const r = await checkRadiusAuth(radiusTarget({ user: 'nobody' }), secrets());
    expect(r).toMatchObject({ success: false, error: 'access_reject' });
  });

  it('fails when the shared secret is wrong: the server drops the request or its reply does not verify', async () => {
    const r = await checkRadiusAuth(radiusTarget({ timeoutMs: 1500 }), secrets('a-wrong-shared-secret'));
    expect(r.success).toBe(false);
    expect(['timeout', 'bad_authenticator', 'bad_message_authenticator']).toContain(r.error);
  });

  it('fails with timeout when nothing answers on the port', async () => {
    const r = await checkRadiusAuth(radiusTarget({ port: await freeUdpPort(), timeoutMs: 800 }), secrets());
    expect(r).toMatchObject({ success: false, error: 'timeout' });
    // The latency reported is the wait: the timeout, less the event loop clock's granularity.
    expect(r.latency_ms).toBeGreaterThanOrEqual(790);
  });

  it('fails with not_configured when a secret cannot be read', async () => {
    const r = await checkRadiusAuth(radiusTarget(), async () => {
      throw new Error('Secret RADIUS_SECRET is not configured');
    });
    expect(r).toMatchObject({ success: false, error: 'not_configured' });
  });
});

describe('portal_access against an HTTP server', () => {
  const target = (path: string, timeoutMs = ANSWERED_MS) => ({
    url: web.url(path),
    marker: PORTAL_MARKER,
    timeoutMs,
  });

  it('passes on 200 with the marker', async () => {
    const before = web.hits.get('/portal') ?? 0;
    expect(await checkPortal(target('/portal'))).toMatchObject({ name: 'portal_access', success: true });
    expect(web.hits.get('/portal')).toBe(before + 1);
  });

  it('fails with http_500 on a server error, even if the page has the marker', async () => {
    expect(await checkPortal(target('/portal-500'))).toMatchObject({ success: false, error: 'http_500' });
  });

  it('fails with marker_missing on a 200 page that is not the portal', async () => {
    expect(await checkPortal(target('/portal-plain'))).toMatchObject({
      success: false,
      error: 'marker_missing',
    });
  });

  it('fails with timeout when the server never answers', async () => {
    const r = await checkPortal(target('/hang', 600));
    expect(r).toMatchObject({ success: false, error: 'timeout' });
  });

  it('fails with unreachable when nothing listens', async () => {
    const r = await checkPortal({
      url: `http://127.0.0.1:${await freeUdpPort()}/`,
      marker: 'x',
      timeoutMs: 1000,
    });
    expect(r).toMatchObject({ success: false, error: 'unreachable' });
  });
});

describe('data_transfer against an HTTP server', () => {
  const target = (path: string, bytes = DATA_BYTES, timeoutMs = ANSWERED_MS) => ({
    url: web.url(path),
    bytes,
    timeoutMs,
  });

  it('passes when every byte arrives, and records the throughput', async () => {
    const r = await checkDataTransfer(target('/data'));
    expect(r).toMatchObject({ name: 'data_transfer', success: true });
    expect(r.throughput_kbps).toBeGreaterThan(0);
  });

  it('fails with truncated when the connection closes before Content-Length bytes', async () => {
    expect(await checkDataTransfer(target('/data-truncated'))).toMatchObject({
      success: false,
      error: 'truncated',
    });
  });

  it('fails with truncated when fewer bytes than the known size arrive', async () => {
    const r = await checkDataTransfer(target('/data-short'));
    expect(r).toMatchObject({ success: false, error: 'truncated' });
    expect(r.detail).toContain(`${DATA_BYTES - 1000} of ${DATA_BYTES}`);
  });

  it('fails with size_mismatch when the file is not the size configured', async () => {
    expect(await checkDataTransfer(target('/data', DATA_BYTES * 2))).toMatchObject({
      success: false,
      error: 'size_mismatch',
    });
  });

  it('fails with timeout when the download does not finish in time', async () => {
    expect(await checkDataTransfer(target('/hang', DATA_BYTES, 500))).toMatchObject({
      success: false,
      error: 'timeout',
    });
  });
});

describe('api_health against an HTTP server', () => {
  const target = (path: string) => ({ url: web.url(path), timeoutMs: ANSWERED_MS });

  it('passes on 200 with a status document', async () => {
    expect(await checkApiHealth(target('/status-ok'))).toMatchObject({ name: 'api_health', success: true });
  });

  it('fails with http_500 on a server error', async () => {
    expect(await checkApiHealth(target('/status-500'))).toMatchObject({ success: false, error: 'http_500' });
  });

  it('fails with invalid_body on a 200 that is not a status document', async () => {
    expect(await checkApiHealth(target('/status-bad'))).toMatchObject({
      success: false,
      error: 'invalid_body',
    });
    expect(await checkApiHealth(target('/portal'))).toMatchObject({ success: false, error: 'invalid_body' });
  });
});
