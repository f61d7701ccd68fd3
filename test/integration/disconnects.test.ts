import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AdminPrincipal } from '../../functions/core/principal.js';
import { claimDisconnects, disconnectByOperator, recordResult } from '../../functions/radius/disconnect.js';
import { Access } from '../../functions/store/access-codes.js';
import { countersOf, scopeOf } from '../../functions/store/counters.js';
import { getDisconnect } from '../../functions/store/disconnects.js';
import { transact } from '../../functions/store/entity.js';
import {
  countSessionsItems,
  getSession,
  openSessionItems,
  type RadiusSession,
} from '../../functions/store/sessions.js';
import { useTestTable } from '../support/db.js';

// The Disconnect-Request's life in the store, on DynamoDB Local, with time moved by hand: what
// the relay's claims and results do when they race, arrive late, or never arrive. (The whole
// path through FreeRADIUS's relay and a fake router is test/edge/disconnect.test.ts.)
useTestTable();

const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const s = (n: number) => T0 + n * 1000;

/** An open session of a fresh reseller, stored as a first accounting report stores it. */
async function openSession(): Promise<RadiusSession> {
  const code = randomUUID().slice(0, 10).toUpperCase();
  const session: RadiusSession = {
    id: randomUUID().replace(/-/g, ''),
    code,
    nas_id: `access_${randomUUID().slice(0, 8)}`,
    reseller_id: randomUUID(),
    device: '02:00:00:00:00:01',
    acct_session_id: 'A1',
    nas_ip: '192.0.2.10',
    status: 'open',
    total_bytes: 0,
    session_time_s: 0,
    started_at: new Date(T0).toISOString(),
    last_report_at: new Date(T0).toISOString(),
  };
  await Access.put({
    code,
    reseller_id: session.reseller_id,
    source: 'payment',
    source_id: 'x',
    forfait_id: 'f',
    offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 1, mir_kbps: 1, max_devices: 1 },
    created_at: session.started_at,
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  });
  await transact(openSessionItems(session, 0, {}));
  // Counted right after, as accounting does (functions/radius/accounting.ts).
  await transact(countSessionsItems([{ ...session, uncounted: true }]));
  return session;
}

/** An operator asks for the cut (`POST /sessions/{id}/disconnect`), as an admin. */
const ADMIN: AdminPrincipal = {
  sub: randomUUID(),
  ref: 'SUB-2250700000009',
  role: 'admin',
  exp: 4_000_000_000,
};
const askCut = async (session: RadiusSession, nowMs: number) =>
  (await disconnectByOperator(ADMIN, session.id, nowMs)).disconnect;

/** Claims until the session's request is handed out (other tests' requests share the due index). */
async function claimFor(sessionId: string, nowMs: number) {
  const claimed = await claimDisconnects(nowMs, 50);
  return claimed.find((c) => c.session_id === sessionId);
}

describe('a Disconnect-Request in the store', () => {
  it('is claimed by one relay only when several poll at once', async () => {
    const session = await openSession();
    await askCut(session, s(0));

    const polls = await Promise.all(Array.from({ length: 6 }, () => claimDisconnects(s(1), 50)));

    const mine = polls.flat().filter((c) => c.session_id === session.id);
    expect(mine).toEqual([
      {
        session_id: session.id,
        attempt: 1,
        host: '192.0.2.10',
        port: 3799,
        user_name: session.code,
        acct_session_id: 'A1',
        nas_identifier: session.nas_id,
        nas_ip_address: '192.0.2.10',
      },
    ]);
  });

  it('closes its session once when the same ACK is reported many times at once', async () => {
    const session = await openSession();
    await askCut(session, s(0));
    await claimFor(session.id, s(1));
    expect((await countersOf(scopeOf.reseller(session.reseller_id))).open).toBe(1);

    await Promise.all(
      Array.from({ length: 6 }, () => recordResult(session.id, { attempt: 1, outcome: 'ack' }, s(2))),
    );

    expect(await getSession(session.id)).toMatchObject({ status: 'closed', close_reason: 'disconnect' });
    expect((await countersOf(scopeOf.reseller(session.reseller_id))).open).toBe(0);
    expect(await getDisconnect(session.id)).toMatchObject({ status: 'acked', attempts: 1 });
  });

  it('ignores a late result of an earlier attempt', async () => {
    const session = await openSession();
    await askCut(session, s(0));
    await claimFor(session.id, s(1));
    await recordResult(session.id, { attempt: 1, outcome: 'nak', error_cause: 506 }, s(2));
    expect(await claimFor(session.id, s(4))).toMatchObject({ attempt: 2 });

    // Attempt 1's ACK arrives now (a duplicate from the network): attempt 2 is the one under way.
    expect(await recordResult(session.id, { attempt: 1, outcome: 'ack' }, s(5))).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
    expect((await getSession(session.id))?.status).toBe('open');
  });

  it('counts a send with no result within its window as unanswered, and fails after the last attempt', async () => {
    const session = await openSession();
    await askCut(session, s(0));
    // Defaults: 3 sends, a 15 s window for each result; the relay reports nothing (it died).
    expect(await claimFor(session.id, s(1))).toMatchObject({ attempt: 1 });
    expect(await claimFor(session.id, s(10))).toBeUndefined();
    expect(await claimFor(session.id, s(17))).toMatchObject({ attempt: 2 });
    expect(await claimFor(session.id, s(33))).toMatchObject({ attempt: 3 });
    expect(await claimFor(session.id, s(49))).toBeUndefined();

    expect(await getDisconnect(session.id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_outcome: 'timeout',
    });
    expect(await claimFor(session.id, s(100))).toBeUndefined();
    expect((await getSession(session.id))?.status).toBe('open');
  });

  it('is asked once while under way, and armed again once failed', async () => {
    const session = await openSession();
    const first = await askCut(session, s(0));
    const again = await askCut(session, s(1));
    expect(again).toEqual(first);

    for (const [at, attempt] of [
      [1, 1],
      [4, 2],
      [9, 3],
    ] as const) {
      await claimFor(session.id, s(at));
      await recordResult(session.id, { attempt, outcome: 'nak' }, s(at + 1));
    }
    expect((await getDisconnect(session.id))?.status).toBe('failed');

    expect(await askCut(session, s(20))).toMatchObject({
      status: 'pending',
      attempts: 0,
    });
    expect(await claimFor(session.id, s(21))).toMatchObject({ attempt: 1 });
  });

  it('waits longer before each next send (backoff: 2 s, then 4 s)', async () => {
    const session = await openSession();
    await askCut(session, s(0));
    await claimFor(session.id, s(1));
    await recordResult(session.id, { attempt: 1, outcome: 'timeout' }, s(2));
    expect(await claimFor(session.id, s(3))).toBeUndefined();
    expect(await claimFor(session.id, s(4.1))).toMatchObject({ attempt: 2 });
    await recordResult(session.id, { attempt: 2, outcome: 'timeout' }, s(5));
    expect(await claimFor(session.id, s(8))).toBeUndefined();
    expect(await claimFor(session.id, s(9.1))).toMatchObject({ attempt: 3 });
  });
});
