import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { liveSessions } from '../../functions/monitoring/live-sessions.js';
import { sweepSilentSessions } from '../../functions/radius/closing.js';
import { accountingExchange, authorizeExchange } from '../../functions/radius/exchange.js';
import { regionExchange } from '../../functions/radius/table-store.js';
import { Access } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { recordNasClose } from '../../functions/store/nas-closes.js';
import { Router, type RouterRecord } from '../../functions/store/routers.js';
import { getSession } from '../../functions/store/sessions.js';
import { accountingReport, paidCode } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { account } from '../support/region.js';

// Finding M1 of issue 31 at the API's side: a NAS id that changed hands. A router of the
// earlier holder still naming the NAS id (as a release left them before releases revoked them),
// a restart recorded in the earlier holder's time, and sessions of both holders open at once.

useTestTable();

/** NAS `nasId` held by `b` now, after `a`: a's leftover session and router, b's session. */
async function handedOver() {
  const a = randomUUID();
  const b = randomUUID();
  const nasId = `access_reuse_${randomUUID().slice(0, 8)}`;
  const codeA = paidCode(a);
  const codeB = paidCode(b);
  await Promise.all([Access.put(codeA), Access.put(codeB)]);
  // a's session, from its time at the NAS id.
  await Nas.put({ nas_id: nasId, reseller_id: a, reseller_name: 'A', vlan_id: 10, kind: 'vlan' });
  const sessionA = randomUUID();
  await account(accountingReport({ nasId }, codeA.code, sessionA, 'Start'), Date.now());
  // Now b's.
  await Nas.put({ nas_id: nasId, reseller_id: b, reseller_name: 'B', vlan_id: 11, kind: 'vlan' });
  const sessionB = randomUUID();
  await account(accountingReport({ nasId }, codeB.code, sessionB, 'Start'), Date.now());
  const staleRouter: RouterRecord = {
    router_id: `rtr_${randomUUID().replace(/-/g, '').slice(0, 12)}`,
    reseller_id: a,
    name: "A's router",
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: '192.0.2.31',
    status: 'active',
    created_at: new Date().toISOString(),
  };
  await Router.put(staleRouter);
  return { a, b, nasId, codeA, codeB, sessionA, sessionB, staleRouter };
}

/** A request of `router`'s, as FreeRADIUS sends it (its id set by FreeRADIUS itself). */
const fromRouter = (router: RouterRecord, attrs: Record<string, string>) =>
  new Map(Object.entries({ 'Hotspot-Router-Id': router.router_id, ...attrs }));

describe('M1: a NAS id that changed hands', () => {
  it("refuses the earlier holder's router, which still names the NAS id: its Accounting-On closes none of the new holder's sessions", async () => {
    const h = await handedOver();
    const answer = await accountingExchange(
      fromRouter(h.staleRouter, { 'NAS-Identifier': h.nasId, 'Acct-Status-Type': 'Accounting-On' }),
      regionExchange(Date.now()),
    );
    expect(answer).toEqual({ status: 204, routerRefused: 'foreign_nas_id' });
    expect((await getSession(h.sessionB))?.status).toBe('open');
  });

  it("refuses the earlier holder's router's logins at the NAS id, even with the new holder's code", async () => {
    const h = await handedOver();
    const answer = await authorizeExchange(
      fromRouter(h.staleRouter, {
        'NAS-Identifier': h.nasId,
        'User-Name': h.codeB.code,
        'Calling-Station-Id': '02:00:00:00:31:1A',
      }),
      regionExchange(Date.now()),
    );
    expect(answer).toMatchObject({ status: 401, routerRefused: 'foreign_nas_id' });
  });

  it("closes at the new holder's restart only its own sessions, and a restart recorded for the earlier holder only the earlier holder's", async () => {
    const h = await handedOver();
    // A restart left to the sweep in a's time (before b's session started).
    await recordNasClose({ nas_id: h.nasId, before: new Date().toISOString(), reseller_id: h.a });
    await sweepSilentSessions(Date.now());
    expect((await getSession(h.sessionA))?.status).toBe('closed');
    expect((await getSession(h.sessionB))?.status).toBe('open');

    const again = await handedOver();
    const restart = { status: 'Accounting-On' as const, nasId: again.nasId, totalBytes: 0, sessionTimeS: 0 };
    // No router: the NAS id's holder now (b) is read from the NAS.
    expect(await account(restart, Date.now() + 1000)).toEqual({ closed: 1, deferred: 0 });
    expect((await getSession(again.sessionB))?.status).toBe('closed');
    expect((await getSession(again.sessionA))?.status).toBe('open');
  });

  it("lists to the new holder its own sessions and codes only, none of the earlier holder's", async () => {
    const h = await handedOver();
    const listed = await liveSessions(h.b, 20, undefined, Date.now());
    expect(listed.items.map((s) => [s.id, s.code])).toEqual([[h.sessionB, h.codeB.code]]);
    const ofA = await liveSessions(h.a, 20, undefined, Date.now());
    expect(ofA.items).toEqual([]);
  });
});
