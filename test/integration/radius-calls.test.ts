import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPages } from '../../bin/local/pages.js';
import { type LocalServer, startServer } from '../../bin/local/server.js';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { startFrontService } from '../../functions/front/service.js';
import { register } from '../../functions/routers/routers.js';
import { Access } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { paidCode } from '../support/access.js';
import { createTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { TEST_SECRETS } from '../support/secrets.js';

// The DynamoDB calls each RADIUS exchange costs, on each road it travels: the front's service
// (its routers held in memory) and the region's edge rows (an in-country edge forwarding or
// replaying, each call with its token). Counted with the store's client instrumented.

let api: LocalServer;
let front: Awaited<ReturnType<typeof startFrontService>>;
let edgeToken = '';
const resellerId = randomUUID();
const nasId = `access_calls_${randomUUID().slice(0, 8)}`;
let routerId = '';

beforeAll(async () => {
  await createTestTable({ seed: false });
  api = await startServer({ port: 0, pages: localPages() });
  await Nas.put({
    nas_id: nasId,
    reseller_id: resellerId,
    reseller_name: 'Calls',
    vlan_id: 10,
    kind: 'vlan',
  });
  const { router } = await register({
    reseller_id: resellerId,
    name: 'Calls',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: '192.0.2.77',
  });
  routerId = router.router_id;
  ({ token: edgeToken } = await registerEdge({
    name: 'Calls',
    reseller_ids: [resellerId],
    addresses: ['192.0.2.78'],
    nowIso: clock.iso(),
  }));
  // The directory reads nothing more during the test: its refresh is an hour away.
  front = await startFrontService({
    port: 0,
    directory: { refreshMs: 3_600_000, marginMs: 60_000, fullMs: 3_600_000, negativeMs: 3_600_000 },
  });
  await front.routers.ready;
});

afterAll(async () => {
  await front?.close();
  await api?.close();
});

const attrs = (a: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, { type: 'string', value: [v] }]));

type Road = 'front' | 'edge';

async function call(road: Road, route: string, body: Record<string, string | number>): Promise<number> {
  const url =
    road === 'front' ? `${front.url}/api/v1/radius/${route}` : `${api.url}/api/v1/edge/radius/${route}`;
  const token = road === 'front' ? TEST_SECRETS.RADIUS_API_SECRET : edgeToken;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(attrs({ 'Hotspot-Router-Id': routerId, 'NAS-Identifier': nasId, ...body })),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The DynamoDB commands one call sends. */
async function cost(road: Road, route: string, body: Record<string, string | number>) {
  const probe = probeDdb();
  probe.reset();
  const status = await call(road, route, body);
  return { status, calls: [...probe.calls] };
}

const MAC = '02:00:00:00:77:01';

async function exchanges(road: Road) {
  const code = paidCode(resellerId, { max_devices: 4 });
  await Access.put(code);
  const login = {
    'User-Name': code.code,
    'User-Password': code.code,
    'Calling-Station-Id': MAC,
    'Hotspot-NAS-IP': '192.0.2.77',
  };
  // Warm: the router heard, its address seen, the router and the edge's token held.
  await call(road, 'authorize', { ...login, 'Hotspot-Login-At-Authorize': '1' });
  await call(road, 'authorize', { ...login, 'Hotspot-Login-At-Authorize': '1' });
  const out: Record<string, string[]> = {};
  out.authorizeOneCall = (
    await cost(road, 'authorize', { ...login, 'Hotspot-Login-At-Authorize': '1' })
  ).calls;
  out.authorizeCheck = (await cost(road, 'authorize', login)).calls;
  out.postAuth = (await cost(road, 'post-auth', login)).calls;
  const id = randomUUID();
  const acct = (status: string, bytes: number, t: number) => ({
    'Acct-Status-Type': status,
    'Acct-Unique-Session-Id': id,
    'User-Name': code.code,
    'Calling-Station-Id': MAC,
    'Acct-Input-Octets64': '0',
    'Acct-Output-Octets64': String(bytes),
    'Acct-Session-Time': t,
  });
  out.start = (await cost(road, 'accounting', acct('Start', 0, 0))).calls;
  out.interim = (await cost(road, 'accounting', acct('Interim-Update', 1000, 300))).calls;
  out.interimAgain = (await cost(road, 'accounting', acct('Interim-Update', 2000, 600))).calls;
  out.stop = (await cost(road, 'accounting', acct('Stop', 3000, 900))).calls;
  return out;
}

const B = 'BatchGetItemCommand';
const U = 'UpdateItemCommand';
const T = 'TransactWriteItemsCommand';
const G = 'GetItemCommand';

describe('DynamoDB calls per RADIUS exchange, the router and the edge held', () => {
  // A day's hold: every exchange after the first is judged from memory, as in steady traffic.
  beforeAll(() => {
    process.env.RADIUS_ROUTER_HOLD_S = '86400';
    resetConfig();
  });
  afterAll(() => {
    delete process.env.RADIUS_ROUTER_HOLD_S;
    resetConfig();
  });

  const OWN = {
    authorizeOneCall: [B, U],
    authorizeCheck: [B],
    postAuth: [B, U],
    start: [B, T],
    interim: [U],
    interimAgain: [U],
    stop: [B, T],
  };

  it("costs the front's service the calls of the exchange alone: an Interim is one write", async () => {
    expect(await exchanges('front')).toEqual(OWN);
  });

  it("costs an edge's forwarded or replayed exchange what the front's costs: its token and router held", async () => {
    expect(await exchanges('edge')).toEqual(OWN);
  });

  it('judges a router not held with one read before the exchange: the router and its NAS id together', async () => {
    process.env.RADIUS_ROUTER_HOLD_S = '0';
    resetConfig();
    try {
      const code = paidCode(resellerId);
      await Access.put(code);
      const login = { 'User-Name': code.code, 'Calling-Station-Id': MAC, 'Hotspot-NAS-IP': '192.0.2.77' };
      // The front's directory refuses for good without a read (revoked, a NAS id off the list), but
      // an accepted router is read: the router and the NAS id's holder in one BatchGetItem, then
      // the login's reads.
      expect((await cost('front', 'authorize', login)).calls).toEqual([B, B]);
      // The edge's token first (not held either), then the same two reads.
      expect((await cost('edge', 'authorize', login)).calls).toEqual([G, B, B]);
    } finally {
      process.env.RADIUS_ROUTER_HOLD_S = '86400';
      resetConfig();
    }
  });
});
