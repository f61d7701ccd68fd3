import { assertActsFor } from '../core/access.js';
import { config } from '../core/config.js';
import type { Principal } from '../core/tokens.js';
import { getMonthlyRevenue } from '../store/revenue.js';
import { splitRevenue } from './split.js';

/** A reseller's month, from its aggregate (one GetItem); owner or admin only. */
export async function billingSummary(principal: Principal, resellerId: string, month: string) {
  assertActsFor(principal, resellerId);
  const revenue = await getMonthlyRevenue(resellerId, month);
  const c = config();
  return {
    month,
    total_fcfa: revenue.total_fcfa,
    split: splitRevenue(revenue.total_fcfa, c.PROVIDER_FEE_RATE, c.OPERATOR_SHARE_RATE),
    sessions_count: revenue.sessions_count,
  };
}
