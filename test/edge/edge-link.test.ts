import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { startEdge } from '../../functions/edge-service/service.js';
import { register } from '../../functions/routers/routers.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { type LinkProxy, linkProxy, radiusBody } from '../support/edge.js';
import { useLocalServer } from '../support/http.js';

// Issue 42, item 4: the edge's link to its region with hysteresis. The region is the real local
// API (the edge rows), reached through a proxy that can slow one answer, fail one with a 5xx,
// throttle with API Gateway's 429, or cut the cable; the edge is called as its FreeRADIUS calls it.

const server = useLocalServer();
let link: LinkProxy;
/** What the link does to the next matching requests; then it passes them. */
const faults: { path: RegExp; fault: 'slow' | 'fail'; ms?: number }[] = [];
let mode: 'pass' | 'throttle' = 'pass';
let service: Awaited<ReturnType<typeof startEdge>>;
const localSecret = `edge-local-${randomUUID()}`;
const resellerId = randomUUID();
const nasId = `access_link_${randomUUID().slice(0, 8)}`;
let routerId = '';
const FORWARD_MS = 2000;

beforeAll(async () => {
  link = await linkProxy(server.url(), (path) => {
    // API Gateway's answer when a route's throttle is spent.
    if (mode === 'throttle' && path.startsWith('/api/v1/edge/radius/'))
      return { status: 429, body: '{"message":"Too Many Requests"}', headers: { 'retry-after': '1' } };
    const i = faults.findIndex((f) => f.path.test(path));
    const fault = i >= 0 ? faults.splice(i, 1)[0] : undefined;
    if (fault?.fault === 'fail') return { status: 503, body: '{"message":"Service Unavailable"}' };
    return fault ? { delayMs: fault.ms ?? 0 } : undefined;
  });

  await recordReseller({ resellerId, name: 'Cabine Koffi', country: 'CI' });
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Cabine Koffi',
    vlan_id: 12,
    kind: 'vlan',
  });
  const { router } = await register({
    reseller_id: resellerId,
    name: 'Routeur de la cabine',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: '127.31.1.9',
  });
  routerId = router.router_id;
  const { token } = await registerEdge({
    name: 'Bouaké',
    reseller_ids: [resellerId],
    addresses: ['192.0.2.42'],
    nowIso: clock.iso(),
  });
  service = await startEdge({
    regionUrl: link.url,
    token,
    localSecret,
    dataDir: mkdtempSync(join(tmpdir(), 'hotspot-edge-link-')),
    // Longer than the local region takes on a busy machine; the slow answer below is longer.
    forwardTimeoutMs: FORWARD_MS,
    answerBudgetMs: FORWARD_MS + 4000,
    probeMs: 100,
  });
});

afterAll(async () => {
  await service?.close();
  await link?.close();
});

/** FreeRADIUS's authorize of a PAP login (the login recorded there when allowed). */
const login = (code: string, mac: string) =>
  call(
    'authorize',
    radiusBody({
      'User-Name': code,
      'User-Password': code,
      'NAS-Identifier': nasId,
      'Hotspot-Router-Id': routerId,
      'Hotspot-Login-At-Authorize': '1',
      'Calling-Station-Id': mac,
    }),
  );

const report = (code: AccessCode, session: string, total: number, status = 'Interim-Update') =>
  call(
    'accounting',
    radiusBody({
      'Acct-Status-Type': status,
      'User-Name': code.code,
      'Acct-Session-Id': session,
      'Acct-Unique-Session-Id': `${session}-${code.code}`,
      'NAS-Identifier': nasId,
      'Hotspot-Router-Id': routerId,
      'Calling-Station-Id': '02:00:00:00:42:01',
      'Acct-Input-Octets64': String(total / 2),
      'Acct-Output-Octets64': String(total / 2),
    }),
  );

const call = (route: string, body: unknown) =>
  fetch(`${service.url}/api/v1/radius/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${localSecret}` },
    body: JSON.stringify(body),
  });

/** The replica fetched again, once the journal is replayed (a replica is taken only then). */
async function synced(): Promise<void> {
  while (service.journal.size > 0) {
    const replayed = once(service.events, 'replayed');
    if (service.journal.size === 0) break;
    await replayed;
  }
  expect(await service.sync()).toBe(true);
}

/** Resolves once the proxy has been asked `path` `n` more times. */
const asks = (path: string, n: number) =>
  new Promise<void>((done) => {
    let left = n;
    const on = (p: string) => {
      if (p === path && --left === 0) {
        link.asked.off('path', on);
        done();
      }
    };
    link.asked.on('path', on);
  });

describe("the edge's link to a slow, failing or throttled region", () => {
  it('lets in a code sold after the last sync when the region answers late, and stays up', async () => {
    await synced();
    // Bought by mobile money a minute ago: the replica does not know it.
    const fresh = paidCode(resellerId);
    await Access.put(fresh);
    faults.push({ path: /\/edge\/radius\/authorize$/, fault: 'slow', ms: FORWARD_MS + 1000 });
    const res = await login(fresh.code, '02:00:00:00:42:02');
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('Hotspot-Login-Recorded');
    expect(service.link()).toBe('up');
    expect(Object.keys((await getAccessCode(fresh.code))?.devices ?? {})).toHaveLength(1);
  });

  it('answers a login from the replica when the region fails it with a 5xx, and stays up', async () => {
    const stock: AccessCode = {
      ...paidCode(resellerId, { duration_hours: 2 }),
      source: 'voucher',
      voucher_status: 'active',
      currency: 'XOF',
    };
    await Access.put(stock);
    await synced();
    faults.push({ path: /\/edge\/radius\/authorize$/, fault: 'fail' });
    const res = await login(stock.code, '02:00:00:00:42:03');
    expect(res.status).toBe(200);
    expect(service.link()).toBe('up');
  });

  it('never passes a 429 to the router: a throttled region is answered from the replica, and the journal replayed after', async () => {
    const inUse = paidCode(resellerId);
    await Access.put(inUse);
    expect((await login(inUse.code, '02:00:00:00:42:01')).status).toBe(200);
    expect((await report(inUse, 'T-1', 0, 'Start')).status).toBe(204);
    await synced();
    mode = 'throttle';
    // A report and a login while throttled: acknowledged and let in here, not refused.
    expect((await report(inUse, 'T-1', 40_000)).status).toBe(204);
    const during = await login(inUse.code, '02:00:00:00:42:01');
    expect([during.status, await during.text()]).toEqual([200, expect.stringContaining('Session-Timeout')]);
    expect(service.journal.size).toBeGreaterThan(0);
    const replayed = once(service.events, 'replayed');
    mode = 'pass';
    await replayed;
    expect((await getAccessCode(inUse.code))?.used_bytes).toBe(40_000);
  });

  it('goes down only after three calls fail in a row, and then probes without fetching the replica', async () => {
    const code = paidCode(resellerId);
    await Access.put(code);
    link.setCut(true);
    const down = once(service.events, 'link');
    // Each report waits the forward timeout, is journaled and acknowledged; the link holds.
    expect((await report(code, 'C-1', 1000, 'Start')).status).toBe(204);
    expect(service.link()).toBe('up');
    await Promise.all([report(code, 'C-1', 2000), report(code, 'C-1', 3000)]);
    expect(await down).toEqual(['down']);
    // Down: answered at once; the probes (the journal's first entry, sent again) read no replica.
    const replicas = link.count['/api/v1/edge/replica'] ?? 0;
    await asks('/api/v1/edge/radius/accounting', 2);
    expect(link.count['/api/v1/edge/replica'] ?? 0).toBe(replicas);
    const up = once(service.events, 'link');
    link.setCut(false);
    expect(await up).toEqual(['up']);
    expect((await getAccessCode(code.code))?.used_bytes).toBe(3000);
  });
});
