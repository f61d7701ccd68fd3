import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFreeRadius, startFreeRadius } from '../../bin/local/freeradius.js';
import { clock } from '../../functions/core/clock.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { startEdge } from '../../functions/edge-service/service.js';
import { GUESS_BUDGETS } from '../../functions/radius/guesses.js';
import { frontTls, register } from '../../functions/routers/routers.js';
import { Access, type AccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { type LinkProxy, linkProxy } from '../support/edge.js';
import { useLocalServer } from '../support/http.js';
import { type RadiusAttributes, radclient, radclientBatch } from '../support/radius.js';

// Issue 40 (info) and 42: during a cut the edge counts wrong codes under the region's budgets
// (functions/radius/guesses.ts, over the edge's memory), through its FreeRADIUS: past a budget
// the answer is the same whether the code is right or wrong (no oracle), and a flood of wrong
// codes from many MACs does not stop a paid code (no switch-off).

const server = useLocalServer();
let link: LinkProxy;
let service: Awaited<ReturnType<typeof startEdge>>;
let radius: RunningFreeRadius;
const localSecret = `edge-local-${randomUUID()}`;
const resellerId = randomUUID();
const nasId = `access_gs_${randomUUID().slice(0, 8)}`;
const routerIp = '127.31.0.9';
let routerSecret = '';
const card = (): AccessCode => ({
  ...paidCode(resellerId, { duration_hours: 4 }),
  source: 'voucher',
  voucher_status: 'active',
  currency: 'XOF',
});
const cards = [card(), card()];
const paid = paidCode(resellerId, { max_devices: 3 });

beforeAll(async () => {
  link = await linkProxy(server.url());
  await recordReseller({ resellerId, name: 'Cyber Kone', country: 'ML' });
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Cyber Kone',
    vlan_id: 12,
    kind: 'vlan',
  });
  const { credentials } = await register({
    reseller_id: resellerId,
    name: 'Routeur',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: routerIp,
  });
  routerSecret = (credentials as { secret: string }).secret;
  for (const c of [...cards, paid]) await Access.put(c);
  const { token } = await registerEdge({
    name: 'Bamako',
    reseller_ids: [resellerId],
    addresses: ['192.0.2.71'],
    nowIso: clock.iso(),
  });
  service = await startEdge({
    regionUrl: link.url,
    token,
    localSecret,
    dataDir: mkdtempSync(join(tmpdir(), 'hotspot-edge-guesses-')),
    forwardTimeoutMs: 3000,
    answerBudgetMs: 3000,
    downAfter: 1,
    probeMs: 60_000,
  });
  expect(await service.sync()).toBe(true);
  const timeout = process.env.RADIUS_API_TIMEOUT;
  process.env.RADIUS_API_TIMEOUT = '8';
  radius = await startFreeRadius({
    apiUrl: service.url,
    apiSecret: localSecret,
    tls: await frontTls('localhost'),
  });
  if (timeout === undefined) delete process.env.RADIUS_API_TIMEOUT;
  else process.env.RADIUS_API_TIMEOUT = timeout;
  // The router's client is learnt while the link is up; then the country is cut.
  expect((await login(paid.code, '02:00:00:00:71:00')).code).toBe('Access-Accept');
  link.setCut(true);
  const down = once(service.events, 'link');
  await login('ZZZZZZZZ', '02:00:00:00:71:01');
  await down;
  expect(service.link()).toBe('down');
}, 120_000);

afterAll(async () => {
  await radius?.stop();
  await service?.close();
  await link?.close();
});

const packet = (code: string, mac: string): RadiusAttributes => ({
  'Message-Authenticator': '0x00',
  'NAS-Identifier': nasId,
  'User-Name': code,
  'User-Password': code,
  'Calling-Station-Id': mac,
  'Packet-Src-IP-Address': routerIp,
});
const target = () => ({ port: radius.authPort, secret: routerSecret, timeoutS: 12 });
const login = (code: string, mac: string) => radclient('auth', packet(code, mac), target());
const wrong = () => `W${randomUUID().replace(/-/g, '').slice(0, 9).toUpperCase()}`;
const mac = (i: number) =>
  `02:00:00:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;

describe('wrong codes during a cut, at the edge', () => {
  it("past a device's budget, its right code gets the same answer as a wrong one", async () => {
    const device = '02:00:00:00:72:01';
    const first = await radclientBatch(
      'auth',
      Array.from({ length: GUESS_BUDGETS.device.limit }, () => packet(wrong(), device)),
      { ...target(), parallel: 10 },
    );
    expect(first.counts['Access-Reject']).toBe(GUESS_BUDGETS.device.limit);
    const right = await login(cards[0]?.code as string, device);
    const another = await login(wrong(), device);
    expect(right.code).toBe('Access-Reject');
    expect(right.attributes['Reply-Message']).toEqual(another.attributes['Reply-Message']);
    expect(String(right.attributes['Reply-Message'])).toContain("Trop d'essais");
    // Another device is not refused for it.
    expect((await login(cards[0]?.code as string, '02:00:00:00:72:02')).code).toBe('Access-Accept');
  }, 300_000);

  it("past the hotspot's budget, a MAC-hopping guesser finds no card, and a paid code still gets in", async () => {
    const n = GUESS_BUDGETS.nas.limit;
    const flood = await radclientBatch(
      'auth',
      Array.from({ length: n }, (_, i) => packet(wrong(), mac(0x100 + i))),
      { ...target(), parallel: 10 },
    );
    // Every one refused (radclient may give up on one on a busy machine: the edge counted it anyway).
    expect(flood.counts['Access-Accept']).toBe(0);
    expect(flood.counts['Access-Reject']).toBeGreaterThanOrEqual(n - 5);
    // A never-used card from a fresh MAC: answered as a wrong code from a fresh MAC is.
    const found = await login(cards[1]?.code as string, mac(0x9000));
    const missed = await login(wrong(), mac(0x9001));
    expect(found.code).toBe('Access-Reject');
    expect(found.attributes['Reply-Message']).toEqual(missed.attributes['Reply-Message']);
    // A paid code (delivered to its buyer) is not switched off by the flood.
    expect((await login(paid.code, mac(0x9002))).code).toBe('Access-Accept');
  }, 300_000);
});
