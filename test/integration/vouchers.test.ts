import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { monthOf } from '../../functions/billing/payments.js';
import {
  exportBatchCsv,
  generateVouchers,
  listVouchers,
  redeem,
  VOUCHER_ALPHABET,
} from '../../functions/billing/vouchers.js';
import { clock } from '../../functions/core/clock.js';
import { AppError } from '../../functions/core/errors.js';
import { createForfait, retireForfait } from '../../functions/store/forfaits.js';
import { getMonthlyRevenue } from '../../functions/store/revenue.js';
import { getVoucher } from '../../functions/store/vouchers.js';
import { useTestTable } from '../support/db.js';

useTestTable({ seed: true });

const forfait = SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number];
const codeOf = (e: unknown) => (e instanceof AppError ? e.code : String(e));
const CODE = new RegExp(`^[${VOUCHER_ALPHABET}]{10}$`);

describe('voucher generation', () => {
  it('makes 1000 unique codes of the alphabet, all stored active in one batch', async () => {
    const resellerId = randomUUID();
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
    const csv = await exportBatchCsv(out.batch_id);
    expect(csv.trim().split('\n')).toHaveLength(1001);
  }, 60_000);

  it('refuses n out of 1..1000 and an unknown or retired forfait', async () => {
    const r = randomUUID();
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

describe('voucher redemption', () => {
  it('lets exactly one of 20 parallel redeems win; the others get 409; revenue counted once', async () => {
    const resellerId = randomUUID();
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId, n: 1 });
    const code = items[0]?.code as string;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => redeem(code.toLowerCase(), randomUUID()).then(() => 'ok', codeOf)),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'ERR_CONFLICT')).toHaveLength(19);
    expect((await getVoucher(code))?.status).toBe('redeemed');
    const revenue = await getMonthlyRevenue(resellerId, monthOf(clock.now()));
    expect(revenue).toMatchObject({ total_fcfa: forfait.price_fcfa, sessions_count: 1 });
    const listed = await listVouchers(resellerId, 'redeemed', 1, 20);
    expect(listed.items.map((v) => v.code)).toEqual([code]);
    expect((await listVouchers(resellerId, 'active', 1, 20)).total).toBe(0);
  });

  it('answers 404 for an unknown code', async () => {
    expect(await redeem('ABCDEFGHJK', randomUUID()).catch(codeOf)).toBe('ERR_NOT_FOUND');
  });
});

describe('voucher code collisions', () => {
  it('reports a taken code and writes nothing of that chunk, so the caller can regenerate it', async () => {
    const { putVouchers } = await import('../../functions/store/vouchers.js');
    const base = {
      forfait_id: forfait.id,
      price_fcfa: forfait.price_fcfa,
      reseller_id: randomUUID(),
      batch_id: randomUUID(),
      status: 'active' as const,
      created_at: clock.iso(),
    };
    const { items } = await generateVouchers({ forfaitId: forfait.id, resellerId: randomUUID(), n: 1 });
    const taken = items[0]?.code as string;
    const fresh = 'ZZZZZZZZZ2';
    expect(
      await putVouchers([
        { ...base, code: fresh },
        { ...base, code: taken },
      ]),
    ).toEqual([taken]);
    expect(await getVoucher(fresh)).toBeUndefined();
  });
});
