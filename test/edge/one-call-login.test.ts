import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningFreeRadius, startFreeRadius } from '../../bin/local/freeradius.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { frontTls } from '../../functions/routers/routers.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { paidCode } from '../support/access.js';
import { asRouter, type EdgeContext, edgeStack, givenUdpRouter, type TestRouter } from '../support/radius.js';

// A PAP login in one call to the API: the shipped FreeRADIUS configuration (its own instance
// here) in front of the run's real API, through a recording proxy that lists the routes
// FreeRADIUS calls, and DynamoDB Local. The old two-call contract (authorize, then post-auth)
// keeps working for CHAP and for a configuration that does not ask for one call.

let edge: EdgeContext;
let proxy: Server;
let radius: RunningFreeRadius;
/** The RADIUS routes FreeRADIUS called, in order (the client lookup left out). */
let routes: string[] = [];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  const api = new URL(edge.serviceUrl);
  proxy = createServer((req, res) => {
    const route = /^\/api\/v1\/radius\/([a-z-]+)$/.exec(req.url ?? '')?.[1];
    if (route && route !== 'client') routes.push(route);
    const forward = request(
      { host: api.hostname, port: api.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  radius = await startFreeRadius({
    apiUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    apiSecret: edge.radiusApiSecret,
    // The RadSec files in run.sh's environment, as the task definition gives them.
    tls: await frontTls('localhost'),
  });
});

afterAll(async () => {
  await radius?.stop();
  proxy?.closeAllConnections();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
});

const viaProxy = () => ({ ...edge, radiusAuthPort: radius.authPort, radiusAcctPort: radius.acctPort });

let seq = 0;
async function hotspot(): Promise<{ resellerId: string; nasId: string; router: TestRouter }> {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_onecall_${Date.now().toString(36)}_${seq}`;
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'Edge', vlan_id: 10, kind: 'vlan' });
  return { resellerId, nasId, router: await givenUdpRouter(edge, resellerId, [nasId]) };
}

/** A paid code of the reseller, in the table. */
async function code(resellerId: string, maxDevices = 1): Promise<AccessCode> {
  const c = paidCode(resellerId, { max_devices: maxDevices });
  await Access.put(c);
  return c;
}

const leases = async (c: string) => Object.keys((await getAccessCode(c))?.devices ?? {});

describe('a PAP login in one call to the API', () => {
  it('is checked and recorded by authorize: an Access-Accept with its attributes, and no post-auth call', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    routes = [];
    const reply = await asRouter(viaProxy(), router).auth({
      'User-Name': c.code,
      'User-Password': c.code,
      'NAS-Identifier': nasId,
      'Calling-Station-Id': '02:00:00:00:10:01',
    });
    expect(reply.code).toBe('Access-Accept');
    expect(reply.attributes['Session-Timeout']?.[0]).toBeDefined();
    expect(reply.attributes['Mikrotik-Rate-Limit']?.[0]).toContain('512k');
    expect(routes).toEqual(['authorize']);
    expect(await leases(c.code)).toHaveLength(1);
  });

  it('writes nothing for a wrong password, and FreeRADIUS rejects it', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    routes = [];
    const reply = await asRouter(viaProxy(), router).auth({
      'User-Name': c.code,
      'User-Password': 'WRONGWRONG',
      'NAS-Identifier': nasId,
      'Calling-Station-Id': '02:00:00:00:10:02',
    });
    expect(reply.code).toBe('Access-Reject');
    expect(reply.attributes['Session-Timeout']).toBeUndefined();
    expect(routes).toEqual(['authorize']);
    expect(await leases(c.code)).toEqual([]);
  });

  it('lets one of two devices racing for the last place in, and rejects the other', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId, 1);
    const replies = await Promise.all(
      ['02:00:00:00:10:03', '02:00:00:00:10:04'].map((mac) =>
        asRouter(viaProxy(), router).auth({
          'User-Name': c.code,
          'User-Password': c.code,
          'NAS-Identifier': nasId,
          'Calling-Station-Id': mac,
        }),
      ),
    );
    expect(replies.map((r) => r.code).sort()).toEqual(['Access-Accept', 'Access-Reject']);
    expect(await leases(c.code)).toHaveLength(1);
  });

  it('leaves CHAP as it was: authorize answers the password, post-auth records the login', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    routes = [];
    const reply = await asRouter(viaProxy(), router).auth({
      'User-Name': c.code,
      'CHAP-Password': c.code,
      'NAS-Identifier': nasId,
      'Calling-Station-Id': '02:00:00:00:10:05',
    });
    expect(reply.code).toBe('Access-Accept');
    expect(reply.attributes['Session-Timeout']?.[0]).toBeDefined();
    expect(routes).toEqual(['authorize', 'post-auth']);
    expect(await leases(c.code)).toHaveLength(1);
  });

  it('keeps the two-call contract for a configuration that does not ask: authorize only reads', async () => {
    const { resellerId, nasId, router } = await hotspot();
    const c = await code(resellerId);
    const body = {
      'User-Name': { type: 'string', value: [c.code] },
      'User-Password': { type: 'string', value: [c.code] },
      'NAS-Identifier': { type: 'string', value: [nasId] },
      'Calling-Station-Id': { type: 'string', value: ['02:00:00:00:10:06'] },
      'Hotspot-Router-Id': { type: 'string', value: [router.routerId] },
    };
    const res = await fetch(`${edge.serviceUrl}/api/v1/radius/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${edge.radiusApiSecret}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(reply)).toEqual(['control:Cleartext-Password']);
    expect(await leases(c.code)).toEqual([]);
    // Post-auth, as such a configuration calls it next, records the login.
    const post = await fetch(`${edge.serviceUrl}/api/v1/radius/post-auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${edge.radiusApiSecret}` },
      body: JSON.stringify(body),
    });
    expect(post.status).toBe(200);
    expect(await post.json()).toHaveProperty('reply:Session-Timeout');
    expect(await leases(c.code)).toHaveLength(1);
  });
});
