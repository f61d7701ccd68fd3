// The split of a month's takings between the reseller, the operator and the fees, in whole francs that sum to the total.

/**
 * The split of a month's takings, in whole francs that always sum to the total: the providers'
 * fee is what the month's books hold (booked on each mobile-money sale, none on cash or
 * vouchers: functions/billing/ledger.ts), the operator's share = round((total - fee) x
 * OPERATOR_SHARE_RATE), the reseller gets the rest (its agents' commission comes out of it).
 */
export interface Split {
  reseller_fcfa: number;
  operator_fcfa: number;
  provider_fee_fcfa: number;
}

/**
 * fee as booked; operator = round((total - fee) x operatorShare); the reseller gets the rest.
 * With a fee in [0, total] and a share in [0, 1], every part is a non-negative integer; a month
 * whose refunds outweigh its sales splits its negative total the same way.
 */
export function splitRevenue(totalFcfa: number, providerFeeFcfa: number, operatorShare: number): Split {
  const net = totalFcfa - providerFeeFcfa;
  // + 0: a share of a small negative net rounds to -0, which is 0.
  const operator = Math.round(net * operatorShare) + 0;
  return { reseller_fcfa: net - operator, operator_fcfa: operator, provider_fee_fcfa: providerFeeFcfa };
}
