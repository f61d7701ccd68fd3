import { assertActsFor } from '../core/access.js';
import { config } from '../core/config.js';
import type { Principal } from '../core/principal.js';
import { getMonthlyRevenue } from '../store/revenue.js';
import { resellerCurrency } from './sale.js';
import { splitRevenue } from './split.js';

/**
 * A reseller's month, from its aggregate (one Query of at most 9 items: the sales item and the
 * session-count shards) and its profile (a GetItem), side by side; owner or admin only. The
 * total is in the reseller's one currency, which the answer names: XOF and XAF are never added
 * together.
 */
export async function billingSummary(principal: Principal, resellerId: string, month: string) {
  assertActsFor(principal, resellerId);
  const [revenue, currency] = await Promise.all([
    getMonthlyRevenue(resellerId, month),
    resellerCurrency(resellerId),
  ]);
  const c = config();
  const split = splitRevenue(revenue.total_fcfa, c.PROVIDER_FEE_RATE, c.OPERATOR_SHARE_RATE);
  return {
    month,
    currency,
    total_fcfa: revenue.total_fcfa,
    split,
    sessions_count: revenue.sessions_count,
    // Beyond the spec's fields (which stay as they are): the part of the total its agents sold
    // for cash, their commission, and what is left of it for the reseller (docs/agents.md).
    agents: {
      sold_fcfa: revenue.agents_sold_fcfa,
      commission_fcfa: revenue.agents_commission_fcfa,
      reseller_after_commission_fcfa: split.reseller_fcfa - revenue.agents_commission_fcfa,
    },
  };
}
