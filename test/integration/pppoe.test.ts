import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changeSubscriberOf,
  makePlan,
  makeSubscriber,
  subscriber,
  subscribers,
} from '../../functions/billing/pppoe.js';
import { renewByCash, renewByMobileMoney } from '../../functions/billing/pppoe-renewals.js';
import { clock, monthOf } from '../../functions/core/clock.js';
import { AppError } from '../../functions/core/errors.js';
import type { OperatorPrincipal } from '../../functions/core/principal.js';
import { getPayment } from '../../functions/store/payments.js';
import { getSubscriber } from '../../functions/store/pppoe.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { useTestTable } from '../support/db.js';
import { hotspotOf } from '../support/hotspots.js';
import { webhookSettlement } from '../support/webhook.js';

useTestTable();
afterEach(() => clock.reset());

const codeOf = (e: unknown) => (e instanceof AppError ? e.code : String(e));
const PRICE = 15000;

/** A reseller in Côte d'Ivoire with a hotspot, acting as itself. */
async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId);
  const me: OperatorPrincipal = { sub: randomUUID(), ref: 'SUB-1', role: 'reseller', resellerId, exp: 0 };
  return { resellerId, nasId, me };
}

/** A reseller's monthly plan and one subscriber on it (never paid). */
async function givenSubscriber(grace_days = 2) {
  const r = await givenReseller();
  const plan = await makePlan(r.me, undefined, {
    ...{ name: 'Maison 10M', price_fcfa: PRICE, period: 'month', down_kbps: 10240, up_kbps: 2048 },
    ...{ fair_use: { gb: 100, down_kbps: 2048, up_kbps: 512 }, grace_days },
  });
  const sub = await makeSubscriber(r.me, undefined, {
    ...{ plan_id: plan.id, msisdn: '07 12 34 56 78', name: 'Awa Koné', nas_ids: [r.nasId] },
  });
  return { ...r, plan, sub };
}

describe('PPPoE plans and subscribers', () => {
  it('make a subscriber with generated printable credentials, a number in E.164, and one device by default', async () => {
    const { me, plan, sub } = await givenSubscriber();

    expect(plan).toMatchObject({ max_devices: 1, hidden: false, grace_days: 2, period: 'month' });
    expect(sub).toMatchObject({ msisdn: '+2250712345678', state: 'new', periods: 0, period_bytes: 0 });
    expect(sub.username).toMatch(/^pp[a-z2-9]{8}$/);
    expect(sub.password).toMatch(/^[a-hjkmnp-z2-9]{10}$/);

    // The list leaves the password out; the subscriber itself carries it, for the card.
    const list = await subscribers(me, undefined);
    expect(list.items).toEqual([expect.not.objectContaining({ password: expect.anything() })]);
    expect((await subscriber(me, undefined, sub.id)).password).toBe(sub.password);
  });

  it('refuse a user name already taken, by anyone, with 409 ERR_USERNAME_TAKEN, and change nothing', async () => {
    const a = await givenSubscriber();
    const b = await givenReseller();
    const plan = await makePlan(b.me, undefined, {
      ...{
        name: 'Boutique',
        price_fcfa: 5000,
        period: 'week',
        down_kbps: 4096,
        up_kbps: 1024,
        grace_days: 0,
      },
    });
    const input = { plan_id: plan.id, msisdn: '+2250712345679', name: 'Ali', nas_ids: [b.nasId] };

    const taken = await makeSubscriber(b.me, undefined, { ...input, username: a.sub.username }).catch(codeOf);
    expect(taken).toBe('ERR_USERNAME_TAKEN');
    expect((await subscribers(b.me, undefined)).items).toEqual([]);

    // A rename moves the name: the old one is free again, the new one is held.
    const renamed = await changeSubscriberOf(a.me, undefined, a.sub.id, { username: 'awa.kone' });
    expect(renamed.username).toBe('awa.kone');
    const again = await makeSubscriber(b.me, undefined, { ...input, username: a.sub.username });
    expect(again.username).toBe(a.sub.username);
    const clash = await changeSubscriberOf(b.me, undefined, again.id, { username: 'awa.kone' }).catch(codeOf);
    expect(clash).toBe('ERR_USERNAME_TAKEN');
  });

  it("do not let a reseller see, change or renew another's subscriber, nor name another's plan or hotspot", async () => {
    const a = await givenSubscriber();
    const b = await givenReseller();

    expect(await subscriber(b.me, undefined, a.sub.id).catch(codeOf)).toBe('ERR_NOT_FOUND');
    expect(await changeSubscriberOf(b.me, undefined, a.sub.id, { suspended: true }).catch(codeOf)).toBe(
      'ERR_NOT_FOUND',
    );
    expect(await renewByCash(b.me, undefined, a.sub.id, 1).catch(codeOf)).toBe('ERR_NOT_FOUND');
    const foreignPlan = { plan_id: a.plan.id, msisdn: '+2250712345679', name: 'Ali', nas_ids: [b.nasId] };
    expect(await makeSubscriber(b.me, undefined, foreignPlan).catch(codeOf)).toBe('ERR_NOT_FOUND');
    const ownPlan = await makePlan(b.me, undefined, {
      ...{ name: 'B', price_fcfa: 5000, period: 'week', down_kbps: 4096, up_kbps: 1024, grace_days: 0 },
    });
    const foreignNas = { ...foreignPlan, plan_id: ownPlan.id, nas_ids: [a.nasId] };
    expect(await makeSubscriber(b.me, undefined, foreignNas).catch(codeOf)).toBe('ERR_NOT_FOUND');
    expect((await getSubscriber(a.sub.id))?.status).toBe('active');
  });
});

describe('PPPoE renewals', () => {
  it('sell a period once when a console sends the same cash renewal eight times at once, and book it once', async () => {
    const { resellerId, me, sub, plan } = await givenSubscriber();
    clock.set(() => Date.parse('2026-11-10T08:00:00.000Z'));

    const tries = await Promise.allSettled(
      Array.from({ length: 8 }, () => renewByCash(me, undefined, sub.id, 1)),
    );

    const sold = tries.filter((t) => t.status === 'fulfilled');
    expect(sold).toHaveLength(1);
    expect(tries.filter((t) => t.status === 'rejected').map((t) => codeOf(t.reason))).toEqual(
      Array(7).fill('ERR_PERIOD_SOLD'),
    );
    expect((await subscriber(me, undefined, sub.id)).renewals).toEqual([
      expect.objectContaining({
        period: 1,
        channel: 'cash',
        amount_fcfa: PRICE,
        starts_at: '2026-11-10T08:00:00.000Z',
      }),
    ]);
    expect(await getSubscriber(sub.id)).toMatchObject({ periods: 1, paid_until: '2026-12-10T08:00:00.000Z' });
    const books = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    expect(books).toMatchObject({ total_fcfa: PRICE, sales_count: 1, by_channel: { cash: PRICE } });
    expect(books.by_forfait).toEqual({ [plan.id]: PRICE });
  });

  it('sell one period per mobile-money payment when six complete at once, each counted once, back to back', async () => {
    const { resellerId, me, sub } = await givenSubscriber();
    clock.set(() => Date.parse('2026-01-31T10:00:00.000Z'));
    const payments = await Promise.all(
      Array.from({ length: 6 }, () =>
        renewByMobileMoney({
          callerSub: randomUUID(),
          msisdn: sub.msisdn,
          subscriberId: sub.id,
          provider: 'wave',
        }),
      ),
    );
    const delivery = (id: string) => ({
      ...{ event_id: randomUUID(), transaction_id: id, status: 'completed' as const },
      ...{ amount_fcfa: PRICE, provider: 'wave' },
    });

    // Each payment delivered twice at once: twelve deliveries racing for six periods.
    const outcomes = await Promise.all(
      payments.flatMap((p) => [
        webhookSettlement(delivery(p.transaction_id)),
        webhookSettlement(delivery(p.transaction_id)),
      ]),
    );

    expect(outcomes.filter((o) => o === 'completed')).toHaveLength(6);
    const renewals = (await subscriber(me, undefined, sub.id)).renewals;
    expect(renewals.map((r) => r.period)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(renewals.map((r) => r.payment_id))).toEqual(
      new Set(payments.map((p) => p.transaction_id)),
    );
    // Back to back from the first, a calendar month each (the 31st of January ends on the last of February).
    const ends = ['02-28', '03-31', '04-30', '05-31', '06-30', '07-31'].map((d) => `2026-${d}T10:00:00.000Z`);
    expect(renewals.map((r) => [r.starts_at, r.ends_at])).toEqual(
      ends.map((end, i) => [i === 0 ? '2026-01-31T10:00:00.000Z' : ends[i - 1], end]),
    );
    expect((await getSubscriber(sub.id))?.paid_until).toBe('2026-07-31T10:00:00.000Z');
    const books = await getMonthlyRevenue(resellerId, '2026-01');
    expect(books).toMatchObject({
      total_fcfa: 6 * PRICE,
      sales_count: 6,
      by_channel: { mobile_money: 6 * PRICE },
    });
    for (const p of payments) expect((await getPayment(p.transaction_id))?.status).toBe('completed');
  });

  it('refuse a payment for a subscriber of another number as not found', async () => {
    const { sub } = await givenSubscriber();
    const other = renewByMobileMoney({
      ...{ callerSub: randomUUID(), msisdn: '+2250799999999', subscriberId: sub.id, provider: 'wave' },
    });
    expect(await other.catch(codeOf)).toBe('ERR_NOT_FOUND');
  });

  it('start a renewal at the end of the last period within the grace days, and from the day paid after them', async () => {
    const { me, sub } = await givenSubscriber(2);
    clock.set(() => Date.parse('2026-03-01T00:00:00.000Z'));
    await renewByCash(me, undefined, sub.id, 1);

    // A day after its end (within 2 days' grace): no gap, and the state says grace.
    clock.set(() => Date.parse('2026-04-02T00:00:00.000Z'));
    expect((await subscriber(me, undefined, sub.id)).state).toBe('grace');
    expect(await renewByCash(me, undefined, sub.id, 2)).toMatchObject({
      starts_at: '2026-04-01T00:00:00.000Z',
      ends_at: '2026-05-01T00:00:00.000Z',
    });

    // Ten days after its end: expired, and the next period starts when paid.
    clock.set(() => Date.parse('2026-05-11T00:00:00.000Z'));
    expect((await subscriber(me, undefined, sub.id)).state).toBe('expired');
    expect(await renewByCash(me, undefined, sub.id, 3)).toMatchObject({
      starts_at: '2026-05-11T00:00:00.000Z',
      ends_at: '2026-06-11T00:00:00.000Z',
    });
    expect((await subscriber(me, undefined, sub.id)).state).toBe('active');
  });
});
