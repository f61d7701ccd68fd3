import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitRevenue } from '../../functions/billing/split.js';

describe('the billing split', () => {
  it('gives integer parts that always sum to the total, non-negative when the fee is within it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (total, feeShare, share) => {
          const fee = Math.floor(total * feeShare);
          const s = splitRevenue(total, fee, share);
          for (const part of [s.reseller_fcfa, s.operator_fcfa, s.provider_fee_fcfa]) {
            expect(Number.isInteger(part)).toBe(true);
            expect(part).toBeGreaterThanOrEqual(0);
          }
          expect(s.provider_fee_fcfa).toBe(fee);
          expect(s.reseller_fcfa + s.operator_fcfa + s.provider_fee_fcfa).toBe(total);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('sums to a negative total too (a month whose refunds outweigh its sales)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 0 }),
        fc.integer({ min: -20_000, max: 0 }),
        (total, fee) => {
          const s = splitRevenue(total, fee, 0.3);
          expect(s.reseller_fcfa + s.operator_fcfa + s.provider_fee_fcfa).toBe(total);
        },
      ),
    );
  });

  it('takes the fee as booked and 30% of the rest to the operator', () => {
    expect(splitRevenue(10_000, 200, 0.3)).toEqual({
      provider_fee_fcfa: 200,
      operator_fcfa: 2940,
      reseller_fcfa: 6860,
    });
    // A month of cash sales only: no fee.
    expect(splitRevenue(400, 0, 0.3)).toEqual({
      provider_fee_fcfa: 0,
      operator_fcfa: 120,
      reseller_fcfa: 280,
    });
  });

  it('splits zero into zeros', () => {
    expect(splitRevenue(0, 0, 0.3)).toEqual({ provider_fee_fcfa: 0, operator_fcfa: 0, reseller_fcfa: 0 });
  });
});
