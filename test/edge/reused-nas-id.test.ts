import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, type AccessCode } from '../../functions/store/access-codes.js';
import { bindingsOfMac, bindMac } from '../../functions/store/mac-bindings.js';
import { getRouter } from '../../functions/store/routers.js';
import { fullSessions, getSession, openDevicesOfNas } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { call, tokenFor } from '../support/http.js';
import { asRouter, type EdgeContext, edgeStack, givenUdpRouter, type TestRouter } from '../support/radius.js';

// Finding M1 of issue 31, replayed as it was found, through the whole chain (radclient ->
// FreeRADIUS -> the local API -> DynamoDB Local): reseller A releases its VLAN, reseller B is
// given the same NAS id, and A's hotspot must not reach into B's.

let edge: EdgeContext;
let admin: string;

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  admin = await tokenFor('admin');
});

async function allocate(resellerId: string, name: string): Promise<{ vlan_id: number; nas_id: string }> {
  const res = await call<{ vlan_id: number; nas_id: string }>(
    edge.apiUrl,
    'POST',
    '/api/v1/network/vlan/allocate',
    {
      token: admin,
      body: { reseller_id: resellerId, reseller_name: name, site_count: 1 },
    },
  );
  expect(res.status).toBe(201);
  return res.body;
}

async function codeOf(resellerId: string): Promise<AccessCode> {
  const code = paidCode(resellerId);
  await Access.put(code);
  return code;
}

/** A device of `router` logs in with `code` and its session starts. */
async function online(router: TestRouter, nasId: string, code: string, mac: string): Promise<void> {
  const as = asRouter(edge, router);
  const login = await as.auth({
    'User-Name': code,
    'User-Password': code,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': mac,
  });
  expect(login.code).toBe('Access-Accept');
  const sessionId = randomUUID();
  const start = await as.acct({
    'Acct-Status-Type': 'Start',
    'User-Name': code,
    'NAS-Identifier': nasId,
    'NAS-IP-Address': router.ip,
    'Acct-Session-Id': sessionId,
    'Calling-Station-Id': mac,
  });
  expect(start.code).toBe('Accounting-Response');
}

/** The open sessions at a NAS id, whoever's (FreeRADIUS makes their ids). */
const openAt = async (nasId: string) => fullSessions((await openDevicesOfNas(nasId)).map((d) => d.id));

describe('M1: a NAS id reused after a VLAN release', () => {
  it("A's release ends its routers, sessions and remembered devices; A's router's Accounting-On then closes none of B's sessions, and B lists none of A's", async () => {
    const name = `Chez Reuse ${Date.now().toString(36)}`;
    const a = randomUUID();
    const b = randomUUID();

    const first = await allocate(a, name);
    const nasId = first.nas_id;
    const routerA = await givenUdpRouter(edge, a, [nasId]);
    const codeA = await codeOf(a);
    const macA = '02:00:00:00:31:0A';
    await online(routerA, nasId, codeA.code, macA);
    const [sessionA] = await openAt(nasId);
    expect(sessionA).toMatchObject({ reseller_id: a, code: codeA.code, status: 'open' });
    const bound = await bindMac(
      {
        reseller_id: a,
        mac: macA,
        code: codeA.code,
        nas_id: nasId,
        bound_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
      codeA,
    );
    expect(bound).toBe('bound');

    const released = await call(edge.apiUrl, 'DELETE', `/api/v1/network/vlans/${first.vlan_id}`, {
      token: admin,
    });
    expect(released.status).toBe(204);
    expect((await getRouter(routerA.routerId))?.status).toBe('revoked');
    expect(await getSession(sessionA?.id as string)).toMatchObject({
      status: 'closed',
      close_reason: 'released',
    });
    expect(await bindingsOfMac(a, macA)).toEqual([]);

    // B is given the same name, hence the same NAS id.
    const second = await allocate(b, name);
    expect(second.nas_id).toBe(nasId);
    const routerB = await givenUdpRouter(edge, b, [nasId]);
    const codeB = await codeOf(b);
    await online(routerB, nasId, codeB.code, '02:00:00:00:31:0B');
    const openB = await openAt(nasId);
    expect(openB.map((s) => [s.reseller_id, s.code])).toEqual([[b, codeB.code]]);

    // A's old router restarts and claims the NAS id: answered (the NAS stops resending), refused.
    const restart = await asRouter(edge, routerA).acct({
      'Acct-Status-Type': 'Accounting-On',
      'NAS-Identifier': nasId,
      'Acct-Session-Id': '0',
    });
    expect(restart.code).toBe('Accounting-Response');
    expect(await getSession(openB[0]?.id as string)).toMatchObject({ status: 'open' });
    // Its logins are refused too.
    const loginA = await asRouter(edge, routerA).auth({
      'User-Name': codeB.code,
      'User-Password': codeB.code,
      'NAS-Identifier': nasId,
      'Calling-Station-Id': '02:00:00:00:31:0C',
    });
    expect(loginA.code).toBe('Access-Reject');

    // B's live sessions: its own, none of A's sessions or codes.
    const listed = await call<{ items: { code: string }[] }>(edge.apiUrl, 'GET', '/api/v1/sessions', {
      token: await tokenFor('reseller', { resellerId: b }),
    });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((s) => s.code)).toEqual([codeB.code]);
  });
});
