/**
 * The split of a month's revenue, in whole FCFA that always sum to the total: the provider's
 * fee = round(total x fee rate), the operator's share = round((total - fee) x operator rate),
 * the reseller gets the rest. Rates are configuration (PROVIDER_FEE_RATE, OPERATOR_SHARE_RATE).
 */
export interface Split {
  reseller_fcfa: number;
  operator_fcfa: number;
  provider_fee_fcfa: number;
}

/**
 * fee = round(total x feeRate); operator = round((total - fee) x operatorShare); the reseller
 * gets the rest. Rates are in [0, 1], so every part is a non-negative integer.
 */
export function splitRevenue(totalFcfa: number, feeRate: number, operatorShare: number): Split {
  const fee = Math.min(totalFcfa, Math.max(0, Math.round(totalFcfa * feeRate)));
  const operator = Math.min(totalFcfa - fee, Math.max(0, Math.round((totalFcfa - fee) * operatorShare)));
  return { reseller_fcfa: totalFcfa - fee - operator, operator_fcfa: operator, provider_fee_fcfa: fee };
}
