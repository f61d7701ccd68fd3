import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { initiatePayment } from '../../functions/billing/payments/initiate.js';
import {
  generateVouchers,
  listVouchers,
  operatorBatchCsv,
  redeem,
} from '../../functions/billing/vouchers.js';
import { clock, monthOf } from '../../functions/core/clock.js';
import { AppError } from '../../functions/core/errors.js';
import { claimDevice, getAccessCode } from '../../functions/store/access-codes.js';
import { listAlertsByStatus } from '../../functions/store/alerts.js';
import { getPayment } from '../../functions/store/payments.js';
import { getReseller, recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue, UNATTRIBUTED, unattributedFor } from '../../functions/store/revenue.js';
import { getVoucherCounts } from '../../functions/store/voucher-counts.js';
import { useTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';
import { hotspotOf } from '../support/hotspots.js';
import { getVoucher } from '../support/store-reads.js';
import { webhookSettlement } from '../support/webhook.js';

useTestTable({ seed: true });

const forfait = SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number];
const codeOf = (e: unknown) => (e instanceof AppError ? e.code : String(e));

async function newReseller(country?: 'CI' | 'SN' | 'CM'): Promise<string> {
  const id = randomUUID();
  await recordReseller({ resellerId: id, name: 'Chez Awa', ...(country ? { country } : {}) });
  return id;
}

const delivery = (id: string, status: 'completed' | 'failed', eventId: string = randomUUID()) => ({
  event_id: eventId,
  transaction_id: id,
  status,
  amount_fcfa: forfait.price_fcfa,
  provider: 'wave',
});

const newPayment = async (nasId?: string) =>
  (
    await initiatePayment({
      subscriberId: randomUUID(),
      forfaitId: forfait.id,
      provider: 'wave',
      ...(nasId ? { nasId } : {}),
    })
  ).transaction_id;

describe('the webhook event id, per payment', () => {
  it('applies one event id reused on another payment to that payment too, instead of dropping it', async () => {
    const a = await newPayment();
    const b = await newPayment();
    const eventId = `evt-${randomUUID()}`;
    expect(await webhookSettlement(delivery(a, 'completed', eventId))).toBe('completed');
    expect(await webhookSettlement(delivery(b, 'completed', eventId))).toBe('completed');
    expect((await getPayment(b))?.status).toBe('completed');
  });

  it('keeps a failed payment failed when a completion comes that its gateway does not confirm, and raises one alert for a human', async () => {
    // The sandbox's status API knows only what its page decided: nothing here.
    const id = await newPayment();
    expect(await webhookSettlement(delivery(id, 'failed'))).toBe('failed');
    expect(await webhookSettlement(delivery(id, 'completed'))).toBe('unchanged');
    expect(await webhookSettlement(delivery(id, 'completed'))).toBe('unchanged');
    expect((await getPayment(id))?.status).toBe('failed');
    const mine = (await listAlertsByStatus('active')).filter((a) => a.site === `payment:${id}`);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ type: 'PAYMENT_MISMATCH' });
  });
});

describe('currencies', () => {
  it('opens a payment at a Cameroonian hotspot in XAF and a Senegalese one in XOF', async () => {
    const cm = await hotspotOf(await newReseller('CM'), 'access_mc');
    const sn = await hotspotOf(await newReseller('SN'), 'access_mc');
    expect((await getPayment(await newPayment(cm)))?.currency).toBe('XAF');
    expect((await getPayment(await newPayment(sn)))?.currency).toBe('XOF');
  });

  it('counts unattributed revenue per currency, never adding XAF to XOF', async () => {
    const month = monthOf(clock.now());
    const before = await getMonthlyRevenue(UNATTRIBUTED, month);
    process.env.DEFAULT_COUNTRY = 'CM';
    const { resetConfig } = await import('../../functions/core/config.js');
    resetConfig();
    try {
      const id = await newPayment();
      expect((await getPayment(id))?.reseller_id).toBe(unattributedFor('XAF'));
      await webhookSettlement(delivery(id, 'completed'));
    } finally {
      delete process.env.DEFAULT_COUNTRY;
      resetConfig();
    }
    expect(await getMonthlyRevenue(UNATTRIBUTED, month)).toEqual(before);
    expect((await getMonthlyRevenue(unattributedFor('XAF'), month)).total_fcfa).toBeGreaterThanOrEqual(
      forfait.price_fcfa,
    );
  });

  it('refuses to move a reseller to the other currency zone, so that its revenue never mixes francs', async () => {
    const id = await newReseller('CI');
    expect(await recordReseller({ resellerId: id, country: 'SN', sameZone: ['CI', 'SN'] })).toBe('recorded');
    expect(await recordReseller({ resellerId: id, country: 'CM', sameZone: ['CM'] })).toBe('zone_change');
    expect((await getReseller(id))?.country).toBe('SN');
  });
});

describe('vouchers and the resellers they are made for', () => {
  it('refuses vouchers for a reseller the platform does not know (404 ERR_NOT_FOUND), writing none', async () => {
    const stranger = randomUUID();
    expect(await generateVouchers({ forfaitId: forfait.id, resellerId: stranger, n: 3 }).catch(codeOf)).toBe(
      'ERR_NOT_FOUND',
    );
    expect((await listVouchers(stranger, undefined, 1, 20)).total).toBe(0);
  });

  it('sets use_by at generation on the voucher and its access code, and shows it in lists and the CSV', async () => {
    const resellerId = await newReseller();
    const before = clock.now();
    const { items, batch_id } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1 });
    const code = items[0]?.code as string;
    const useBy = items[0]?.use_by as string;
    expect(Date.parse(useBy) - before).toBeGreaterThanOrEqual(180 * 86_400_000 - 5000);
    expect((await getAccessCode(code))?.use_by).toBe(useBy);
    expect((await listVouchers(resellerId, undefined, 1, 20)).items[0]).toMatchObject({
      code,
      use_by: useBy,
    });
    const [header, line] = (await operatorBatchCsv(batch_id)).trim().split('\r\n');
    expect(header?.split(';')).toContain('À utiliser avant le');
    // Day first, in the reseller's time (Abidjan's: UTC).
    const d = new Date(useBy);
    const two = (n: number) => String(n).padStart(2, '0');
    expect(line).toContain(
      `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`,
    );
  });

  it('refuses to redeem an unused voucher past its use_by date (409), granting nothing', async () => {
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1 });
    const code = items[0]?.code as string;
    const start = clock.now();
    clock.set(() => start + 181 * 86_400_000);
    try {
      expect(await redeem(code, randomUUID()).catch(codeOf)).toBe('ERR_CONFLICT');
    } finally {
      clock.reset();
    }
    expect((await getVoucherCounts(resellerId)).active).toBe(1);
  });

  it('keeps the counts by status in the generation and redemption transactions', async () => {
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 60 });
    await redeem(items[0]?.code as string, randomUUID());
    await redeem(items[1]?.code as string, randomUUID());
    expect(await getVoucherCounts(resellerId)).toEqual({ active: 58, redeemed: 2 });
    expect((await listVouchers(resellerId, 'active', 1, 20)).total).toBe(58);
    expect((await listVouchers(resellerId, undefined, 1, 20)).total).toBe(60);
  });
});

describe("a voucher's first login at a hotspot", () => {
  it('moves one voucher from active to redeemed in its reseller counts, in the login transaction', async () => {
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 2 });
    const code = (await getAccessCode(items[0]?.code as string)) as NonNullable<
      Awaited<ReturnType<typeof getAccessCode>>
    >;
    const nowIso = clock.iso();
    const until = clock.iso(clock.now() + 3600_000);
    expect(
      await claimDevice({
        code,
        devices: { 'AA:BB:CC:DD:EE:FF': Math.floor(clock.now() / 1000) + 600 },
        nowIso,
        expiresAt: until,
        nasId: 'access_test',
        firstUse: {},
      }),
    ).toBe(true);
    expect(await getVoucherCounts(resellerId)).toEqual({ active: 1, redeemed: 1 });
    // The voucher is the code: redeemed by the same write, and listed so.
    expect(await getVoucher(code.code)).toMatchObject({
      status: 'redeemed',
      redeemed_at: nowIso,
      access_expires_at: until,
    });
    expect((await listVouchers(resellerId, 'redeemed', 1, 20)).items.map((v) => v.code)).toEqual([code.code]);
  });

  it('counts once when a redemption through the API won the race: the login decides again', async () => {
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1 });
    const code = (await getAccessCode(items[0]?.code as string)) as NonNullable<
      Awaited<ReturnType<typeof getAccessCode>>
    >;
    // Read by the login before the redemption wrote.
    await redeem(code.code, randomUUID());
    const nowIso = clock.iso();
    expect(
      await claimDevice({
        code,
        devices: { 'AA:BB:CC:DD:EE:01': Math.floor(clock.now() / 1000) + 600 },
        nowIso,
        expiresAt: clock.iso(clock.now() + 3600_000),
        nasId: 'access_test',
        firstUse: {},
      }),
    ).toBe(false);
    expect(await getVoucherCounts(resellerId)).toEqual({ active: 0, redeemed: 1 });
  });
});

describe('voucher lists by cursor', () => {
  it('lists 10,000 vouchers page by page, each page in two DynamoDB calls, none lost or repeated', async () => {
    const resellerId = await newReseller();
    // One generation after the other: each runs its own transactions 8 at a time already.
    for (let i = 0; i < 10; i++) await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1000 });
    const probe = probeDdb();
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let mostCalls = 0;
    do {
      probe.reset();
      const out = await listVouchers(resellerId, undefined, 1, 100, cursor);
      mostCalls = Math.max(mostCalls, probe.calls.length);
      pages += 1;
      expect(out.page).toBe(pages);
      expect(out).toMatchObject({ total: 10_000, pages: 100 });
      for (const v of out.items) seen.add(v.code);
      cursor = out.next_cursor;
    } while (cursor);
    expect(seen.size).toBe(10_000);
    expect(pages).toBeLessThanOrEqual(101);
    // The counts item and one page of the index: the cost of a page does not grow with the list.
    expect(mostCalls).toBe(2);
  }, 240_000);

  it('refuses a cursor that was tampered with, or that belongs to another reseller or status (400)', async () => {
    const a = await newReseller();
    const b = await newReseller();
    await generateVouchers({ forfaitId: forfait.id, resellerId: a, n: 3 });
    const first = await listVouchers(a, undefined, 1, 1);
    const cursor = first.next_cursor as string;
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/);
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = `${Buffer.from(Buffer.from(payload, 'base64url').toString('utf8').replace(a, b)).toString(
      'base64url',
    )}.${mac}`;
    expect(await listVouchers(b, undefined, 1, 1, forged).catch(codeOf)).toBe('ERR_VALIDATION');
    expect(await listVouchers(b, undefined, 1, 1, cursor).catch(codeOf)).toBe('ERR_VALIDATION');
    expect(await listVouchers(a, 'active', 1, 1, cursor).catch(codeOf)).toBe('ERR_VALIDATION');
    expect((await listVouchers(a, undefined, 1, 1, cursor)).page).toBe(2);
  });
});
