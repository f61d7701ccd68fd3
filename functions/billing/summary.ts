// A reseller's month read from its books: total, split, channels, agents and sessions.

import { assertActsFor } from '../core/access.js';
import { config } from '../core/config.js';
import type { Principal } from '../core/principal.js';
import { getMonthlyRevenue } from '../store/revenue.js';
import { resellerCurrency } from './currency.js';
import type { Channel } from './ledger.js';
import { splitRevenue } from './split.js';

/**
 * A reseller's month, from its books (one Query of at most 9 items: the books item and the
 * session-count shards) and its profile (a GetItem), side by side; owner or admin only. The
 * total is in the reseller's one currency, which the answer names: XOF and XAF are never added
 * together.
 */
export async function billingSummary(principal: Principal, resellerId: string, month: string) {
  assertActsFor(principal, resellerId);
  const [books, currency] = await Promise.all([
    getMonthlyRevenue(resellerId, month),
    resellerCurrency(resellerId),
  ]);
  const split = splitRevenue(books.total_fcfa, books.provider_fee_fcfa, config().OPERATOR_SHARE_RATE);
  const channel = (c: Channel) => books.by_channel[c] ?? 0;
  return {
    month,
    currency,
    total_fcfa: books.total_fcfa,
    split,
    sessions_count: books.sessions_count,
    // Beyond the spec's fields (which stay as they are): the total by how it was paid, and the
    // part its agents sold for cash, their commission, and what is left of it for the reseller
    // (docs/agents.md).
    by_channel: {
      mobile_money: channel('mobile_money'),
      voucher: channel('voucher'),
      cash: channel('cash'),
      counter: channel('counter'),
    },
    agents: {
      // The agents' part of the cash: a reseller's own cash sales (its top-ups, `counter`) are no agent's.
      sold_fcfa: Object.values(books.by_agent).reduce((a, b) => a + b, 0),
      commission_fcfa: books.commission_fcfa,
      reseller_after_commission_fcfa: split.reseller_fcfa - books.commission_fcfa,
    },
  };
}
