// The books of a reseller's sales over a period: what a sale adds, by channel, forfait, hotspot and agent.

/**
 * The books of a reseller's sales over a period: its month (functions/store/revenue.ts) and
 * its day (functions/store/sales.ts) hold the same counters, added to in the same transaction
 * by every sale and taken off by its refund (functions/billing/ledger.ts builds the entries; no
 * other module does). So a month is the sum of its days, in total and by hotspot, forfait,
 * channel and agent.
 *
 * The breakdowns are flat attributes (`h:<nas_id>`, `f:<forfait_id>`, `c:<channel>`,
 * `a:<agent_id>`) rather than maps: an ADD on a top-level attribute creates it, where one on a
 * map entry needs the map to exist first.
 */
export interface Books {
  total_fcfa: number;
  sales_count: number;
  /** What the mobile-money providers kept of the sales made through them (none on cash or vouchers). */
  provider_fee_fcfa: number;
  /** What the agents who sold for cash keep of those sales. */
  commission_fcfa: number;
  by_hotspot: Record<string, number>;
  by_forfait: Record<string, number>;
  by_channel: Record<string, number>;
  by_agent: Record<string, number>;
}

/** The hotspot a sale without one (a voucher redeemed through the API) counts under. */
export const NO_HOTSPOT = '-';

/** One sale (or, with negative numbers, its refund) as its period's counters take it. */
export interface BookEntry {
  amountFcfa: number;
  /** 1 for a sale, -1 for its refund. */
  count: 1 | -1;
  providerFeeFcfa: number;
  commissionFcfa: number;
  nasId: string;
  forfaitId: string;
  channel: string;
  agentId?: string;
}

const BREAKDOWNS = [
  ['h:', 'by_hotspot'],
  ['f:', 'by_forfait'],
  ['c:', 'by_channel'],
  ['a:', 'by_agent'],
] as const;

/** The ADDs of an entry: attribute name -> number. */
export function entryAdds(e: BookEntry): Record<string, number> {
  return {
    total_fcfa: e.amountFcfa,
    sales_count: e.count,
    provider_fee_fcfa: e.providerFeeFcfa,
    commission_fcfa: e.commissionFcfa,
    [`h:${e.nasId}`]: e.amountFcfa,
    [`f:${e.forfaitId}`]: e.amountFcfa,
    [`c:${e.channel}`]: e.amountFcfa,
    ...(e.agentId ? { [`a:${e.agentId}`]: e.amountFcfa } : {}),
  };
}

/** Empty books: a period without a sale. */
export const noBooks = (): Books => ({
  total_fcfa: 0,
  sales_count: 0,
  provider_fee_fcfa: 0,
  commission_fcfa: 0,
  by_hotspot: {},
  by_forfait: {},
  by_channel: {},
  by_agent: {},
});

/** The books a stored item holds, added to `into` (several items of one period are summed). */
export function addBooks(into: Books, item: Record<string, unknown>): Books {
  const n = (v: unknown) => Number(v ?? 0);
  into.total_fcfa += n(item.total_fcfa);
  into.sales_count += n(item.sales_count);
  into.provider_fee_fcfa += n(item.provider_fee_fcfa);
  into.commission_fcfa += n(item.commission_fcfa);
  for (const [k, v] of Object.entries(item)) {
    const breakdown = BREAKDOWNS.find(([prefix]) => k.startsWith(prefix));
    if (!breakdown) continue;
    const by = into[breakdown[1]];
    const key = k.slice(breakdown[0].length);
    by[key] = (by[key] ?? 0) + n(v);
  }
  return into;
}
