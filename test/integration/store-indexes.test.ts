import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { bookings, paymentSale } from '../../functions/billing/ledger.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { defaultRules } from '../../functions/network/default-rules.js';
import {
  Access,
  type AccessCode,
  accessCodeActivate,
  claimDevice,
  getAccessCode,
  listCodesOf,
} from '../../functions/store/access-codes.js';
import { listOperators, removeOperator, upsertOperator } from '../../functions/store/accounts.js';
import { activityPage, recordActivity } from '../../functions/store/activity.js';
import {
  ackAlert,
  listAlertsByStatus,
  listOwnedSiteAlerts,
  raiseAlertOnce,
} from '../../functions/store/alerts.js';
import { deleteDevice, devicesOfAccount, putDevice } from '../../functions/store/devices.js';
import {
  armDisconnect,
  Disconnect,
  type DisconnectRequest,
  dueDisconnects,
  moveDisconnect,
} from '../../functions/store/disconnects.js';
import type { Entitlement } from '../../functions/store/entitlements.js';
import { transact } from '../../functions/store/entity.js';
import {
  createForfait,
  ForfaitEntity,
  listForfaitsOnSale,
  retireForfait,
  updateForfait,
} from '../../functions/store/forfaits.js';
import { listRules } from '../../functions/store/gateway-rules.js';
import type { PrimaryKey } from '../../functions/store/keys.js';
import {
  bindingsAtNas,
  bindingsOfCode,
  bindingsOfMac,
  bindMac,
  forgetMac,
} from '../../functions/store/mac-bindings.js';
import { listNasIdsOfReseller, Nas } from '../../functions/store/nas.js';
import { finishNasClose, pendingNasCloses, recordNasClose } from '../../functions/store/nas-closes.js';
import { listPendingPayments } from '../../functions/store/payment-checks.js';
import { completePayment, expirePayment, failPayment } from '../../functions/store/payment-settlements.js';
import {
  createPayment,
  forgetPaymentMsisdn,
  type Payment,
  PaymentEntity,
  paymentIdsOfSubscriber,
} from '../../functions/store/payments.js';
import { paymentsOfReseller } from '../../functions/store/reseller-payments.js';
import {
  countSessionsItems,
  openDevicesOfNas,
  openSessionItems,
  type RadiusSession,
  reportItems,
  Session,
  silentSessions,
} from '../../functions/store/sessions.js';
import { allocateTx, listAllocations, releaseTx } from '../../functions/store/vlans.js';
import { listBatch, listVouchersFrom, putVouchers } from '../../functions/store/vouchers.js';
import { useTestTable } from '../support/db.js';

/**
 * Each entity's updates that move an item from one list to another (a status change, an
 * expiry, a release, a close): the item is in the new list and no longer in the old, and an
 * index it left holds no key of it. The index keys are written by the entity helper only.
 */
useTestTable();

const offer = { duration_hours: 1, data_limit_mb: 0, cir_kbps: 512, mir_kbps: 1024, max_devices: 1 };
const later = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/** The stored item, bookkeeping attributes included. */
async function raw(key: PrimaryKey): Promise<Record<string, unknown> | undefined> {
  return (await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
}

function accessCode(over: Partial<AccessCode> = {}): AccessCode {
  return {
    code: randomUUID().slice(0, 10).toUpperCase(),
    reseller_id: randomUUID(),
    source: 'voucher',
    source_id: randomUUID(),
    forfait_id: randomUUID(),
    offer,
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
    ...over,
  };
}

describe('index keys follow updates', () => {
  it('Session: a report moves an open session in the sweep index; a close takes it out of both and into its code’s ended sessions', async () => {
    const nasId = `nas-${randomUUID()}`;
    const code = accessCode();
    await Access.put(code);
    const started = new Date(Date.now() - 3_600_000).toISOString();
    const s: RadiusSession = {
      id: randomUUID(),
      code: code.code,
      nas_id: nasId,
      reseller_id: code.reseller_id,
      device: 'aa:bb',
      status: 'open',
      total_bytes: 0,
      session_time_s: 0,
      started_at: started,
      last_report_at: started,
    };
    await transact(openSessionItems(s, 60, {}));
    // Counted right after, as accounting does (functions/radius/accounting.ts).
    await transact(countSessionsItems([{ ...s, uncounted: true }]));
    const silentIds = async (beforeIso: string) => (await silentSessions(beforeIso, 1000)).map((x) => x.id);
    expect((await openDevicesOfNas(nasId)).map((x) => x.id)).toEqual([s.id]);
    expect(await silentIds(later(-1800))).toContain(s.id);

    const now = new Date().toISOString();
    await transact(reportItems(s, { total_bytes: 10, session_time_s: 5, nowIso: now, lease: 60 }));
    // No longer silent an hour ago, still open: it moved within the sweep's index.
    expect(await silentIds(later(-1800))).not.toContain(s.id);
    expect(await silentIds(later(60))).toContain(s.id);
    expect((await openDevicesOfNas(nasId)).map((x) => x.id)).toEqual([s.id]);

    const read = (await Session.get(s, { consistent: true })) as RadiusSession;
    await transact(
      reportItems(read, { total_bytes: 20, session_time_s: 9, nowIso: now, lease: 60, close: 'stop' }),
    );
    expect(await openDevicesOfNas(nasId)).toEqual([]);
    expect(await silentIds(later(60))).not.toContain(s.id);
    // Out of the open indexes; into the code's ended sessions (the console's search), by end time.
    expect(await raw(Session.key(s))).toMatchObject({
      gsi1pk: `CODE#${s.code}#ENDED`,
      gsi1sk: `${now}#${s.id}`,
    });
    expect(await raw(Session.key(s))).not.toHaveProperty('gsi4pk');
    expect(await raw(Session.key(s))).not.toHaveProperty('gsi2sk');

    // A late report of a closed session puts it back in no index.
    const closed = (await Session.get(s, { consistent: true })) as RadiusSession;
    await transact(reportItems(closed, { total_bytes: 30, session_time_s: 12, nowIso: later(5), lease: 60 }));
    expect(await silentIds(later(60))).not.toContain(s.id);
  });

  describe('Payment: completion, failure and expiry leave the pending list', () => {
    const pending = (): Payment => ({
      id: randomUUID(),
      subscriber_id: randomUUID(),
      forfait_id: randomUUID(),
      forfait_name: 'Jour',
      offer: { duration_hours: 24, data_limit_mb: 0, cir_kbps: 512, mir_kbps: 1024, max_devices: 1 },
      amount_fcfa: 500,
      currency: 'XOF',
      provider: 'orange_money',
      reseller_id: randomUUID(),
      status: 'pending',
      created_at: new Date(Date.now() - 60_000).toISOString(),
      expires_at: later(600),
    });
    const pendingIds = async () => (await listPendingPayments(later(1), 1000)).map((p) => p.id);

    it('completed', async () => {
      const p = pending();
      await createPayment(p, undefined);
      expect(await pendingIds()).toContain(p.id);
      const now = new Date().toISOString();
      const entitlement: Entitlement = {
        id: randomUUID(),
        subscriber_id: p.subscriber_id,
        source: 'payment',
        source_id: p.id,
        forfait_id: p.forfait_id,
        data_limit_mb: 0,
        cir_kbps: 512,
        mir_kbps: 1024,
        starts_at: now,
        expires_at: later(3600),
      };
      const access = accessCode({ source: 'payment', source_id: p.id, subscriber_id: p.subscriber_id });
      const outcome = await completePayment({
        payment: p,
        entitlement,
        access,
        bookings: bookings(paymentSale(p), now),
        nowIso: now,
      });
      expect(outcome).toBe('applied');
      expect(await pendingIds()).not.toContain(p.id);
      expect(await raw(PaymentEntity.key(p))).not.toHaveProperty('gsi1pk');
      expect((await PaymentEntity.get(p))?.status).toBe('completed');
      // Its access code is in the buyer's list (written by a put, in the same transaction).
      expect((await listCodesOf(p.subscriber_id)).map((c) => c.code)).toEqual([access.code]);
      // It stays in its reseller's list (byReseller: no update moves it).
      expect((await paymentsOfReseller(p.reseller_id, undefined, 10)).items.map((i) => i.id)).toEqual([p.id]);
      // And in its buyer's (bySubscriber, ids only: what an erasure reads), number taken off or not.
      expect(await paymentIdsOfSubscriber(p.subscriber_id)).toEqual([p.id]);
      await forgetPaymentMsisdn(p.id);
      expect(await paymentIdsOfSubscriber(p.subscriber_id)).toEqual([p.id]);
    });

    it('failed', async () => {
      const p = pending();
      await createPayment(p, undefined);
      expect(await failPayment({ payment: p, nowIso: new Date().toISOString() })).toBe('applied');
      expect(await pendingIds()).not.toContain(p.id);
      // Still listed, among the closed ones a late completion may credit.
      expect(await raw(PaymentEntity.key(p))).toMatchObject({
        gsi1pk: 'PAYMENTS#CLOSED',
        gsi1sk: `${p.created_at}#${p.id}`,
      });
    });

    it('expired', async () => {
      const p = pending();
      await createPayment(p, undefined);
      expect(await expirePayment(p, new Date().toISOString())).toBe(true);
      expect(await pendingIds()).not.toContain(p.id);
      expect((await PaymentEntity.get(p))?.status).toBe('expired');
    });
  });

  it('Disconnect: a claim moves a request later in the due list; an ACK or the last failure takes it out; a new ask puts it back', async () => {
    const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + s * 1000).toISOString();
    const dueIds = async (nowIso: string) => (await dueDisconnects(nowIso, 1000)).map((d) => d.session_id);
    const d: DisconnectRequest = {
      session_id: randomUUID(),
      reseller_id: randomUUID(),
      nas_id: 'access_x',
      user_name: 'CODE',
      host: '192.0.2.1',
      port: 3799,
      reason: 'operator',
      status: 'pending',
      attempts: 0,
      next_at: at(0),
      requested_at: at(0),
      updated_at: at(0),
    };
    expect(await armDisconnect(d)).toBe(true);
    expect(await dueIds(at(1))).toContain(d.session_id);

    expect(await moveDisconnect(d, { status: 'sent', attempts: 1, next_at: at(15), updated_at: at(1) })).toBe(
      true,
    );
    expect(await dueIds(at(2))).not.toContain(d.session_id);
    expect(await dueIds(at(16))).toContain(d.session_id);

    const sent = (await Disconnect.get(d, { consistent: true })) as DisconnectRequest;
    expect(
      await moveDisconnect(sent, {
        status: 'failed',
        attempts: 1,
        next_at: sent.next_at,
        updated_at: at(3),
        last_outcome: 'nak',
        error_cause: 506,
      }),
    ).toBe(true);
    expect(await dueIds(at(100))).not.toContain(d.session_id);
    expect(await raw(Disconnect.key(d))).not.toHaveProperty('gsi1pk');

    expect(await armDisconnect({ ...d, next_at: at(50), requested_at: at(50), updated_at: at(50) })).toBe(
      true,
    );
    expect(await dueIds(at(51))).toContain(d.session_id);
    // Under way: asking again changes nothing.
    expect(await armDisconnect({ ...d, next_at: at(60) })).toBe(false);
  });

  it('Activity: an entry is in its day and in its actor’s list (puts only: nothing moves it)', async () => {
    const actor = randomUUID();
    const at = new Date().toISOString();
    await recordActivity({
      at,
      actor_sub: actor,
      actor_ref: 'SUB-2250700000009',
      role: 'admin',
      action: 'POST /api/v1/resellers',
      target: '/api/v1/resellers',
      status: 201,
      ip: '127.0.0.1',
    });
    const mine = await activityPage({ actor }, undefined, 10);
    expect(mine.items).toMatchObject([{ actor_sub: actor, at }]);
    const day = await activityPage({ day: at.slice(0, 10) }, undefined, 100);
    expect(day.items.map((e) => e.actor_sub)).toContain(actor);
  });

  it('Device credential: it is in its account’s list until deleted (a put and a delete)', async () => {
    const accountId = randomUUID();
    const hash = randomUUID().replace(/-/g, '');
    await putDevice({
      hash,
      msisdn: '+2250700000001',
      account_id: accountId,
      token_version: 0,
      created_at: new Date().toISOString(),
      expires_at: Date.now() + 3600_000,
    });
    expect((await devicesOfAccount(accountId)).map((d) => d.hash)).toEqual([hash]);
    await deleteDevice(hash);
    expect(await devicesOfAccount(accountId)).toEqual([]);
  });

  it('NAS restart: a later restart moves it in the pending list, an earlier one does not, finishing takes it out', async () => {
    const nasId = `access_ix_${randomUUID().slice(0, 8)}`;
    const mine = async () => (await pendingNasCloses(1000)).filter((c) => c.nas_id === nasId);
    expect(await recordNasClose({ nas_id: nasId, before: '2026-01-01T00:00:00.000Z' })).toBe(true);
    expect(await recordNasClose({ nas_id: nasId, before: '2026-01-01T00:05:00.000Z' })).toBe(true);
    expect(await recordNasClose({ nas_id: nasId, before: '2026-01-01T00:01:00.000Z' })).toBe(false);
    expect(await mine()).toEqual([{ nas_id: nasId, before: '2026-01-01T00:05:00.000Z' }]);
    // Finishing the restart as read before the later one leaves the later one.
    expect(await finishNasClose({ nas_id: nasId, before: '2026-01-01T00:00:00.000Z' })).toBe(false);
    expect(await finishNasClose({ nas_id: nasId, before: '2026-01-01T00:05:00.000Z' })).toBe(true);
    expect(await mine()).toEqual([]);
  });

  it('Forfait: a new price moves it in the catalogue; retiring takes it off', async () => {
    const make = (price: number) => ({ id: randomUUID(), name: `F${price}`, price_fcfa: price, ...offer });
    const cheap = make(100_001);
    const dear = make(100_002);
    await createForfait(cheap);
    await createForfait(dear);
    const order = async () =>
      (await listForfaitsOnSale()).map((f) => f.id).filter((id) => id === cheap.id || id === dear.id);
    expect(await order()).toEqual([cheap.id, dear.id]);
    await updateForfait(cheap.id, { price_fcfa: 100_003 });
    expect(await order()).toEqual([dear.id, cheap.id]);
    expect(await retireForfait(dear.id)).toBe(true);
    expect(await order()).toEqual([cheap.id]);
    expect(await raw(ForfaitEntity.key(dear))).not.toHaveProperty('gsi1pk');
    // A retired forfait's offer cannot change: it stays out of the catalogue.
    expect(await updateForfait(dear.id, { price_fcfa: 1 })).toBeUndefined();
    expect(await order()).toEqual([cheap.id]);
  });

  it('Voucher: a first use moves it from the active to the redeemed list, and it stays in its batch', async () => {
    const resellerId = randomUUID();
    const batchId = randomUUID();
    const [used, kept] = [1, 2].map(() =>
      accessCode({ reseller_id: resellerId, source_id: batchId, voucher_status: 'active', price_fcfa: 500 }),
    ) as [AccessCode, AccessCode];
    expect(await putVouchers([used, kept])).toEqual([]);
    const now = new Date().toISOString();
    const list = async (status: 'active' | 'redeemed') =>
      (await listVouchersFrom(resellerId, status, 100, now, undefined)).items.map((v) => v.code);
    expect((await list('active')).sort()).toEqual([used.code, kept.code].sort());

    expect(
      await claimDevice({
        code: used,
        devices: { 'AA:BB:CC:00:00:01': Math.floor(Date.now() / 1000) + 600 },
        nowIso: now,
        expiresAt: later(3600),
        nasId: 'nas-1',
        firstUse: {},
      }),
    ).toBe(true);
    expect(await list('active')).toEqual([kept.code]);
    expect(await list('redeemed')).toEqual([used.code]);
    expect(await raw(Access.key(used))).toMatchObject({ gsi5sk: `redeemed#${used.code}` });
    expect((await listBatch(batchId)).map((v) => v.code).sort()).toEqual([used.code, kept.code].sort());
  });

  it('Voucher: a login after the first and an accounting report leave its list entry as it was', async () => {
    const resellerId = randomUUID();
    const v = accessCode({ reseller_id: resellerId, voucher_status: 'active', price_fcfa: 500 });
    expect(await putVouchers([v])).toEqual([]);
    const now = new Date().toISOString();
    await claimDevice({
      code: v,
      devices: {},
      nowIso: now,
      expiresAt: later(3600),
      nasId: 'nas-1',
      firstUse: {},
    });
    const listed = async () => (await listVouchersFrom(resellerId, 'redeemed', 10, now, undefined)).items;
    const before = await listed();
    const read = (await getAccessCode(v.code)) as AccessCode;
    // A second login: the code's devices change, not what the list shows.
    await claimDevice({
      code: read,
      devices: { 'AA:BB:CC:00:00:02': 1 },
      nowIso: later(60),
      expiresAt: later(7200),
      nasId: 'nas-2',
    });
    expect(await listed()).toEqual(before);
    expect(before[0]).toMatchObject({
      code: v.code,
      status: 'redeemed',
      batch_id: v.source_id,
      price_fcfa: 500,
    });
    // A paid code is no voucher: in no voucher list.
    const paid = accessCode({ reseller_id: resellerId, source: 'payment' });
    await transact({ code: Access.tx.create(paid) });
    expect(await raw(Access.key(paid))).not.toHaveProperty('gsi5pk');
  });

  it('Alert: an ack moves it from the active to the acked list, globally and for its site', async () => {
    const site = `site-${randomUUID()}`;
    const owner = randomUUID();
    await Nas.put({ nas_id: site, reseller_id: owner, reseller_name: 'Owner', vlan_id: 100, kind: 'vlan' });
    const ts = new Date().toISOString();
    const alert = await raiseAlertOnce({ type: 'down', severity: 'high', site, ts, message: 'down' });
    if (!alert) throw new Error('not raised');
    const ids = async (status: 'active' | 'acked') => (await listAlertsByStatus(status)).map((a) => a.id);
    const siteIds = async (status: 'active' | 'acked') =>
      (await listOwnedSiteAlerts(site, owner, status)).map((a) => a.id);
    expect(await ids('active')).toContain(alert.id);
    expect(await siteIds('active')).toEqual([alert.id]);

    await ackAlert(alert.id, 'user-1', randomUUID(), new Date().toISOString());
    expect(await ids('active')).not.toContain(alert.id);
    expect(await ids('acked')).toContain(alert.id);
    expect(await siteIds('active')).toEqual([]);
    expect(await siteIds('acked')).toEqual([alert.id]);
  });

  it('AccessCode: binding a code to its buyer puts it in the buyer’s list', async () => {
    const subscriberId = randomUUID();
    const code = accessCode();
    await Access.put(code);
    expect(await listCodesOf(subscriberId)).toEqual([]);
    await transact({ code: accessCodeActivate(code, subscriberId, new Date().toISOString(), later(3600)) });
    expect((await listCodesOf(subscriberId)).map((c) => c.code)).toEqual([code.code]);
  });

  it('MacBinding: a device bound to a code is in the code’s list, its MAC’s and its hotspot’s, forgetting takes it out of all (puts and deletes)', async () => {
    const code = { ...accessCode(), offer: { ...accessCode().offer, max_devices: 2 } };
    await Access.put(code);
    const mac = '02:AB:CD:EF:00:01';
    const nasId = `access_idx_${randomUUID().slice(0, 8)}`;
    const binding = {
      reseller_id: code.reseller_id,
      mac,
      code: code.code,
      nas_id: nasId,
      bound_at: new Date().toISOString(),
      expires_at: later(3600),
    };
    expect(await bindMac(binding, code)).toBe('bound');
    expect(await bindMac(binding, code)).toBe('already');
    expect(await bindingsOfCode(code.code)).toEqual([binding]);
    expect(await bindingsOfMac(code.reseller_id, mac)).toEqual([binding]);
    expect(await bindingsOfMac(randomUUID(), mac)).toEqual([]);
    expect(await bindingsAtNas(nasId, code.reseller_id)).toEqual([binding]);
    expect(await bindingsAtNas(nasId, randomUUID())).toEqual([]);
    expect((await Access.get({ code: code.code }))?.bound_devices).toBe(1);
    expect(await forgetMac(binding)).toBe(true);
    expect(await forgetMac(binding)).toBe(false);
    expect(await bindingsOfCode(code.code)).toEqual([]);
    expect(await bindingsOfMac(code.reseller_id, mac)).toEqual([]);
    expect(await bindingsAtNas(nasId, code.reseller_id)).toEqual([]);
    expect((await Access.get({ code: code.code }))?.bound_devices).toBe(0);
  });

  it('Account: an operator enters the operators list, moves within it on a role change, and leaves it', async () => {
    const msisdn = `+22507${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const listed = async () => (await listOperators()).filter((a) => a.msisdn === msisdn).map((a) => a.role);
    await upsertOperator({ msisdn, role: 'reseller', resellerId: randomUUID(), name: 'R' });
    expect(await listed()).toEqual(['reseller']);
    await upsertOperator({ msisdn, role: 'admin' });
    expect(await listed()).toEqual(['admin']);
    expect(await raw({ pk: `ACCOUNT#${msisdn}`, sk: 'ACCOUNT' })).toMatchObject({
      gsi1sk: `admin#${msisdn}`,
    });
    expect((await removeOperator(msisdn))?.role).toBe('subscriber');
    expect(await listed()).toEqual([]);
    expect(await raw({ pk: `ACCOUNT#${msisdn}`, sk: 'ACCOUNT' })).not.toHaveProperty('gsi1pk');
  });

  it('VLAN, NAS and rules: a release takes them out of every list (deletes: no update moves them)', async () => {
    const resellerId = randomUUID();
    const vlanId = 3000 + Math.floor(Math.random() * 900);
    const a = {
      vlan_id: vlanId,
      reseller_id: resellerId,
      reseller_name: 'R',
      subnet: '10.0.0.0/24',
      nas_id: `nas-${randomUUID()}`,
      ssid: 'wifi',
      site_count: 0,
      created_at: new Date().toISOString(),
    };
    expect(
      await allocateTx({
        allocation: a,
        slug: 'r',
        rules: defaultRules(vlanId),
      }),
    ).toBe('ok');
    expect((await listAllocations(resellerId)).map((x) => x.vlan_id)).toEqual([vlanId]);
    expect((await listAllocations()).map((x) => x.vlan_id)).toContain(vlanId);
    expect(await listNasIdsOfReseller(resellerId)).toEqual([a.nas_id]);
    expect((await listRules()).filter((r) => r.vlan === vlanId)).toHaveLength(3);

    expect(await releaseTx(a, defaultRules(vlanId))).toBe(true);
    expect(await listAllocations(resellerId)).toEqual([]);
    expect((await listAllocations()).map((x) => x.vlan_id)).not.toContain(vlanId);
    expect(await listNasIdsOfReseller(resellerId)).toEqual([]);
    expect((await listRules()).filter((r) => r.vlan === vlanId)).toEqual([]);
  });
});
