import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import {
  generateVouchers,
  listVouchers,
  operatorBatchCsv,
  redeem,
} from '../../functions/billing/vouchers.js';
import { clock, monthOf } from '../../functions/core/clock.js';
import { AppError } from '../../functions/core/errors.js';
import { getAccessCode } from '../../functions/store/access-codes.js';
import { createForfait, retireForfait, updateForfait } from '../../functions/store/forfaits.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { useTestTable } from '../support/db.js';
import { getVoucher, listEntitlements } from '../support/store-reads.js';

useTestTable({ seed: true });

const forfait = SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number];
/** A reseller the platform knows (vouchers are made for known resellers only). */
async function newReseller(): Promise<string> {
  const id = randomUUID();
  await recordReseller({ resellerId: id, name: 'Chez Awa' });
  return id;
}

const codeOf = (e: unknown) => (e instanceof AppError ? e.code : String(e));
/** A code: 10 characters, without the look-alikes (I, L, O, 0, 1). */
const CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{10}$/;

describe('voucher generation', () => {
  it('makes 1000 unique codes of the alphabet, all stored active in one batch', async () => {
    const resellerId = await newReseller();
    const out = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1000 });
    expect(out.total).toBe(1000);
    const codes = out.items.map((v) => v.code);
    expect(new Set(codes).size).toBe(1000);
    for (const c of codes) expect(c).toMatch(CODE);
    expect(codes.join('')).not.toMatch(/[01OIL]/);
    const listed = await listVouchers(resellerId, 'active', 1, 100);
    expect(listed.total).toBe(1000);
    expect(listed.pages).toBe(10);
    expect(listed.items).toHaveLength(100);
    const csv = await operatorBatchCsv(out.batch_id);
    expect(csv.trim().split('\n')).toHaveLength(1001);
  }, 60_000);

  it('refuses n out of 1..1000 and an unknown or retired forfait', async () => {
    const r = await newReseller();
    expect(await generateVouchers({ forfaitId: forfait.id, resellerId: r, n: 0 }).catch(codeOf)).toBe(
      'ERR_VALIDATION',
    );
    expect(await generateVouchers({ forfaitId: forfait.id, resellerId: r, n: 1001 }).catch(codeOf)).toBe(
      'ERR_VALIDATION',
    );
    expect(await generateVouchers({ forfaitId: randomUUID(), resellerId: r, n: 1 }).catch(codeOf)).toBe(
      'ERR_NOT_FOUND',
    );
    const id = randomUUID();
    await createForfait({ ...forfait, id, name: 'Old' });
    await retireForfait(id);
    expect(await generateVouchers({ forfaitId: id, resellerId: r, n: 1 }).catch(codeOf)).toBe(
      'ERR_NOT_FOUND',
    );
  });
});

describe('a batch with its own code length and prefix', () => {
  it('makes codes of that length, each beginning with the prefix, redeemable as typed', async () => {
    const resellerId = await newReseller();
    const out = await generateVouchers({
      forfaitId: forfait.id,
      resellerId,
      n: 200,
      codeLength: 10,
      prefix: 'aw',
    });
    const codes = out.items.map((v) => v.code);
    expect(new Set(codes).size).toBe(200);
    for (const c of codes) expect(c).toMatch(/^AW[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/);
    const long = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 5, codeLength: 12 });
    for (const v of long.items) expect(v.code).toMatch(/^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{12}$/);
    // Typed with spaces and in lower case, as a buyer reads it off the card.
    const typed = `${codes[0]?.slice(0, 4)} ${codes[0]?.slice(4)}`.toLowerCase();
    await redeem(typed, randomUUID());
    expect((await getVoucher(codes[0] as string))?.status).toBe('redeemed');
  }, 60_000);
});

describe('voucher redemption', () => {
  it('lets exactly one of 20 parallel redeems win; the others get 409; revenue counted once', async () => {
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1 });
    const code = items[0]?.code as string;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => redeem(code.toLowerCase(), randomUUID()).then(() => 'ok', codeOf)),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'ERR_CONFLICT')).toHaveLength(19);
    expect((await getVoucher(code))?.status).toBe('redeemed');
    const revenue = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    // Sessions are counted by RADIUS accounting (a session's Start), not by a redemption.
    expect(revenue).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 0 });
    const listed = await listVouchers(resellerId, 'redeemed', 1, 20);
    expect(listed.items.map((v) => v.code)).toEqual([code]);
    expect((await listVouchers(resellerId, 'active', 1, 20)).total).toBe(0);
  });

  it('grants the offer the voucher was made with, even if the forfait changed or was retired since', async () => {
    const id = randomUUID();
    await createForfait({ ...forfait, id, name: 'Pass Carte', price_fcfa: 400, duration_hours: 6 });
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: id, resellerId, n: 1 });
    await updateForfait(id, { duration_hours: 1, data_limit_mb: 1, price_fcfa: 9999 });
    await retireForfait(id);
    const subscriberId = randomUUID();
    await redeem(items[0]?.code as string, subscriberId);
    const [ent] = await listEntitlements(subscriberId);
    expect(ent).toMatchObject({ forfait_id: id, data_limit_mb: forfait.data_limit_mb, source: 'voucher' });
    expect(Date.parse(ent?.expires_at as string) - Date.parse(ent?.starts_at as string)).toBe(6 * 3600_000);
    expect((await getMonthlyRevenue(resellerId, monthOf(clock.now()))).total_fcfa).toBe(400);
  });

  it('reads a redeemed voucher as expired once the access it granted has ended', async () => {
    const resellerId = await newReseller();
    const { items, batch_id } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 3 });
    const code = items[0]?.code as string;
    await redeem(code, randomUUID());
    const counts = async () => ({
      active: (await listVouchers(resellerId, 'active', 1, 20)).total,
      redeemed: (await listVouchers(resellerId, 'redeemed', 1, 20)).total,
      expired: (await listVouchers(resellerId, 'expired', 1, 20)).total,
    });
    expect(await counts()).toEqual({ active: 2, redeemed: 1, expired: 0 });

    const start = clock.now();
    clock.set(() => start + (forfait.duration_hours * 3600 + 1) * 1000);
    try {
      expect(await counts()).toEqual({ active: 2, redeemed: 0, expired: 1 });
      const expired = await listVouchers(resellerId, 'expired', 1, 20);
      expect(expired.items).toEqual([expect.objectContaining({ code, status: 'expired' })]);
      const all = await listVouchers(resellerId, undefined, 1, 20);
      expect(all.items.find((v) => v.code === code)?.status).toBe('expired');
      expect(await operatorBatchCsv(batch_id, 'en')).toMatch(new RegExp(`^${code},[^\\n]*,expired,`, 'm'));
      expect(await redeem(code, randomUUID()).catch(codeOf)).toBe('ERR_CONFLICT');
    } finally {
      clock.reset();
    }
  });

  it('pages a status filtered on expiry without losing or repeating a voucher', async () => {
    const resellerId = await newReseller();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 10 });
    const codes = items.map((v) => v.code);
    // Redeemed two days ago (a one-hour pass): expired now, interleaved with live ones in code order.
    const start = clock.now();
    clock.set(() => start - 48 * 3600_000);
    try {
      for (const c of codes.filter((_, i) => i % 3 === 0)) await redeem(c, randomUUID());
    } finally {
      clock.reset();
    }
    for (const c of codes.filter((_, i) => i % 3 === 1)) await redeem(c, randomUUID());
    const pageThrough = async (status: 'redeemed' | 'expired') => {
      const seen: string[] = [];
      for (let page = 1; ; page++) {
        const out = await listVouchers(resellerId, status, page, 2);
        seen.push(...out.items.map((v) => v.code));
        expect(out.items.every((v) => v.status === status)).toBe(true);
        if (page >= out.pages) return { seen, total: out.total };
      }
    };
    const expired = await pageThrough('expired');
    expect(expired.total).toBe(4);
    expect(expired.seen.sort()).toEqual(codes.filter((_, i) => i % 3 === 0).sort());
    const redeemed = await pageThrough('redeemed');
    expect(redeemed.total).toBe(3);
    expect(redeemed.seen.sort()).toEqual(codes.filter((_, i) => i % 3 === 1).sort());
  });

  it('answers 404 for an unknown code', async () => {
    expect(await redeem('ABCDEFGHJK', randomUUID()).catch(codeOf)).toBe('ERR_NOT_FOUND');
  });
});

describe('voucher code collisions', () => {
  it('reports a taken code and writes nothing of that chunk, so the caller can regenerate it', async () => {
    const { putVouchers, listBatch } = await import('../../functions/store/vouchers.js');
    const { items } = await generateVouchers({
      forfaitId: forfait.id,
      resellerId: await newReseller(),
      n: 1,
    });
    const taken = items[0]?.code as string;
    const fresh = 'ZZZZZZZZZ2';
    const batchId = randomUUID();
    const resellerId = randomUUID();
    const access = (code: string) => ({
      code,
      reseller_id: resellerId,
      source: 'voucher' as const,
      source_id: batchId,
      forfait_id: forfait.id,
      offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 1, mir_kbps: 1, max_devices: 1 },
      voucher_status: 'active' as const,
      created_at: clock.iso(),
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    });
    expect(await putVouchers([access(fresh), access(taken)])).toEqual([taken]);
    expect(await getVoucher(fresh)).toBeUndefined();
    expect(await getAccessCode(fresh)).toBeUndefined();
    expect(await listBatch(batchId)).toEqual([]);
    // The voucher that had the code is untouched.
    expect((await getAccessCode(taken))?.source_id).not.toBe(batchId);
  });

  it('refuses a voucher whose code a paid code already has (one code space)', async () => {
    const { putVouchers } = await import('../../functions/store/vouchers.js');
    const { accessCodeCreate } = await import('../../functions/store/access-codes.js');
    const { transact } = await import('../../functions/store/entity.js');
    const paid = {
      code: 'PAIDCODE22',
      reseller_id: randomUUID(),
      source: 'payment' as const,
      source_id: randomUUID(),
      subscriber_id: randomUUID(),
      forfait_id: forfait.id,
      offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 1, mir_kbps: 1, max_devices: 1 },
      created_at: clock.iso(),
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    };
    await transact({ code: accessCodeCreate(paid) });
    const voucher = {
      ...paid,
      source: 'voucher' as const,
      voucher_status: 'active' as const,
      subscriber_id: undefined,
    };
    expect(await putVouchers([voucher])).toEqual([paid.code]);
    expect(await getAccessCode(paid.code)).toMatchObject({
      source: 'payment',
      subscriber_id: paid.subscriber_id,
    });
    expect(await getVoucher(paid.code)).toBeUndefined();
  });
});
