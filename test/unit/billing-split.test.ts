import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitRevenue } from '../../functions/billing/split.js';

describe('the billing split', () => {
  it('gives non-negative integer parts that always sum to the total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (total, fee, share) => {
          const s = splitRevenue(total, fee, share);
          for (const part of [s.reseller_fcfa, s.operator_fcfa, s.provider_fee_fcfa]) {
            expect(Number.isInteger(part)).toBe(true);
            expect(part).toBeGreaterThanOrEqual(0);
          }
          expect(s.reseller_fcfa + s.operator_fcfa + s.provider_fee_fcfa).toBe(total);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('applies the default rates as the design states: 2% fee, 30% of the rest to the operator', () => {
    expect(splitRevenue(10_000, 0.02, 0.3)).toEqual({
      provider_fee_fcfa: 200,
      operator_fcfa: 2940,
      reseller_fcfa: 6860,
    });
  });

  it('splits zero into zeros', () => {
    expect(splitRevenue(0, 0.02, 0.3)).toEqual({ provider_fee_fcfa: 0, operator_fcfa: 0, reseller_fcfa: 0 });
  });
});
