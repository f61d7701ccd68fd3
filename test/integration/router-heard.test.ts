import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { noteHeard } from '../../functions/routers/heard.js';
import { register, routerView } from '../../functions/routers/routers.js';
import { flagSilentRouters } from '../../functions/routers/silence.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { listOwnedSiteAlerts } from '../../functions/store/alerts.js';
import { getRouter, type RouterRecord } from '../../functions/store/routers.js';
import { useTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { hotspotOf } from '../support/hotspots.js';

// Issue 33, item 2: a router's state from its own traffic, recorded at most once per interval,
// and a silence that raises one alert and one SMS, cleared by the router's return.

useTestTable();
afterEach(() => clock.reset());

const MIN = 60_000;

async function newRouter(): Promise<{ router: RouterRecord; nasId: string; resellerId: string }> {
  const resellerId = randomUUID();
  const nasId = await hotspotOf(resellerId, 'access_heard');
  const { router } = await register({
    reseller_id: resellerId,
    name: 'Bar Awa',
    nas_ids: [nasId],
    transport: 'radsec',
  });
  return { router: (await getRouter(router.router_id)) as RouterRecord, nasId, resellerId };
}

const smsTo = (msisdn: string) =>
  existsSync(process.env.SMS_OUTBOX as string)
    ? readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { to: string; message: string })
        .filter((m) => m.to === msisdn)
    : [];

/** The router's state as the API shows it (its view) at `atMs`. */
const stateAt = (router: RouterRecord, atMs: number) => {
  clock.set(() => atMs);
  return routerView(router).state;
};

describe('last heard, from the router record its requests read anyway', () => {
  it('is "jamais vu" before any request: never_seen, and not watched for silence', async () => {
    const { router } = await newRouter();
    expect(router.last_heard_at).toBeUndefined();
    expect(stateAt(router, clock.now())).toBe('never_seen');
    await flagSilentRouters(clock.now() + 24 * 60 * MIN);
    expect((await getRouter(router.router_id))?.silent_since).toBeUndefined();
  });

  it('is written once for 50 concurrent packets that read it stale, then not again within 5 minutes', async () => {
    const { router } = await newRouter();
    const t0 = Date.parse('2026-11-26T10:00:00.000Z');
    const probe = probeDdb();
    probe.reset();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => noteHeard(router, t0)));
    expect(outcomes.filter((o) => o === 'written')).toHaveLength(1);
    const updates = () => probe.calls.filter((c) => c === 'UpdateItemCommand').length;
    // Every packet tried the one conditional write at most once with the stale read.
    expect(updates()).toBeLessThanOrEqual(50);
    const heard = (await getRouter(router.router_id)) as RouterRecord;
    expect(heard.last_heard_at).toBe(new Date(t0).toISOString());
    expect(stateAt(heard, t0)).toBe('online');

    // 100 packets over the next 4 minutes, each with the record as read then: no write at all.
    probe.reset();
    const later = await Promise.all(Array.from({ length: 100 }, (_, i) => noteHeard(heard, t0 + i * 2400)));
    expect(later.every((o) => o === 'fresh')).toBe(true);
    expect(updates()).toBe(0);
    // Past 5 minutes, the next packet writes again.
    expect(await noteHeard(heard, t0 + 5 * MIN + 1)).toBe('written');
  });
});

describe('the silence job', () => {
  it('raises one alert and one SMS to the reseller for a router silent 30 minutes, and its return resolves it', async () => {
    const { router, nasId, resellerId } = await newRouter();
    const phone = `+22507${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    await upsertOperator({ msisdn: phone, role: 'reseller', resellerId });
    const t0 = Date.parse('2026-11-26T14:02:00.000Z');
    clock.set(() => t0);
    await noteHeard(router, t0);

    clock.set(() => t0 + 29 * MIN);
    await flagSilentRouters(t0 + 29 * MIN);
    expect(await listOwnedSiteAlerts(nasId, resellerId, 'active')).toHaveLength(0);
    expect(stateAt((await getRouter(router.router_id)) as RouterRecord, t0 + 29 * MIN)).toBe('online');

    clock.set(() => t0 + 31 * MIN);
    await flagSilentRouters(t0 + 31 * MIN);
    // Runs that follow, and two at once, raise nothing more.
    clock.set(() => t0 + 36 * MIN);
    await Promise.all([flagSilentRouters(t0 + 36 * MIN), flagSilentRouters(t0 + 36 * MIN)]);
    const alerts = await listOwnedSiteAlerts(nasId, resellerId, 'active');
    expect(alerts).toMatchObject([{ type: 'router_silent', site: nasId }]);
    expect(alerts[0]?.message).toContain('silencieux depuis 14:02');
    const sms = smsTo(phone);
    expect(sms).toHaveLength(1);
    expect(sms[0]?.message).toContain('Bar Awa');
    expect(sms[0]?.message).toContain('silencieux depuis 14:02');
    const silent = (await getRouter(router.router_id)) as RouterRecord;
    expect(stateAt(silent, t0 + 36 * MIN)).toBe('silent');
    expect(silent.silent_since).toBe(new Date(t0).toISOString());

    // Its next request: heard, the alert resolved by its return.
    clock.set(() => t0 + 50 * MIN);
    expect(await noteHeard(silent, t0 + 50 * MIN)).toBe('written');
    expect(await listOwnedSiteAlerts(nasId, resellerId, 'active')).toHaveLength(0);
    expect(await listOwnedSiteAlerts(nasId, resellerId, 'acked')).toMatchObject([
      { id: alerts[0]?.id, acked_by: 'retour du routeur' },
    ]);
    const back = (await getRouter(router.router_id)) as RouterRecord;
    expect([stateAt(back, t0 + 50 * MIN), back.silent_since]).toEqual(['online', undefined]);

    // A second silence is a new alert and a new SMS.
    clock.set(() => t0 + 90 * MIN);
    await flagSilentRouters(t0 + 90 * MIN);
    expect(await listOwnedSiteAlerts(nasId, resellerId, 'active')).toHaveLength(1);
    expect(smsTo(phone)).toHaveLength(2);
  });
});
