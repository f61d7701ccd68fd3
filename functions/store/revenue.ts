import type { Currency } from '../core/currency.js';
import { entity, type TxItem } from './entity.js';

/**
 * Revenue of one reseller in one month (UTC), kept up to date inside the transaction that
 * completes a payment or redeems a voucher: the billing summary is one GetItem, whatever the
 * number of payments. A reseller sells in one currency (its country's; the operator CLI refuses
 * to move it to the other zone), so its aggregate never mixes XOF and XAF. Payments without a
 * NAS id count under `UNATTRIBUTED` (XOF, as before currencies) or `unattributed-xaf`.
 */
export const UNATTRIBUTED = 'unattributed';

/** The reseller id unattributed revenue of a currency counts under: one aggregate per currency. */
export const unattributedFor = (currency: Currency): string =>
  currency === 'XOF' ? UNATTRIBUTED : `${UNATTRIBUTED}-${currency.toLowerCase()}`;

export interface MonthlyRevenue {
  reseller_id: string;
  month: string;
  total_fcfa: number;
  sessions_count: number;
  /** Of `total_fcfa`, what the reseller's agents sold for cash (functions/store/agents.ts). */
  agents_sold_fcfa: number;
  /** The agents' commission on those sales (kept by the agents, out of the reseller's share). */
  agents_commission_fcfa: number;
}

/** As stored: a month counted only by RADIUS session starts has no `total_fcfa` yet. */
const Revenue = entity<
  Pick<MonthlyRevenue, 'reseller_id' | 'month' | 'sessions_count'> &
    Partial<Pick<MonthlyRevenue, 'total_fcfa' | 'agents_sold_fcfa' | 'agents_commission_fcfa'>>
>()({
  name: 'revenue',
  key: (r: Pick<MonthlyRevenue, 'reseller_id' | 'month'>) => ({
    pk: `REVENUE#${r.reseller_id}`,
    sk: `MONTH#${r.month}`,
  }),
});

/**
 * An ADD to a month's counters, for a transaction. The SET writes what the item is, so that the
 * first ADD of a month creates a complete item.
 */
function add(
  r: Pick<MonthlyRevenue, 'reseller_id' | 'month'>,
  adds: string,
  values: Record<string, number>,
): TxItem {
  return Revenue.tx.update(r, {
    expression: `ADD ${adds} SET entity = :entity, reseller_id = :r, #month = :m`,
    names: { '#month': 'month' },
    values: { ...values, ':entity': Revenue.name, ':r': r.reseller_id, ':m': r.month },
  });
}

/** The increment of a month's aggregate by a sale, for a transaction. */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD total_fcfa, sessions_count (in a transaction).
export const revenueIncrement = (resellerId: string, month: string, amountFcfa: number): TxItem =>
  add({ reseller_id: resellerId, month }, 'total_fcfa :amount', { ':amount': amountFcfa });

/**
 * An agent's cash sale: it counts in the month's total like any sale, and in the agents' share
 * (sold, commission) that the billing summary adds beside the spec's fields.
 */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD total_fcfa, agents_sold_fcfa, agents_commission_fcfa (in a transaction).
export const revenueIncrementByAgent = (
  resellerId: string,
  month: string,
  amountFcfa: number,
  commissionFcfa: number,
): TxItem =>
  add(
    { reseller_id: resellerId, month },
    'total_fcfa :amount, agents_sold_fcfa :amount, agents_commission_fcfa :commission',
    { ':amount': amountFcfa, ':commission': commissionFcfa },
  );

/** One more RADIUS session started in the month at the reseller's hotspots (accounting Start). */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD sessions_count 1 (in a transaction).
export const revenueSessionStarted = (resellerId: string, month: string): TxItem =>
  add({ reseller_id: resellerId, month }, 'sessions_count :one', { ':one': 1 });

/** A month with no activity reads as zeros. */
// Access: GetItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>.
export async function getMonthlyRevenue(resellerId: string, month: string): Promise<MonthlyRevenue> {
  const r = await Revenue.get({ reseller_id: resellerId, month });
  return {
    reseller_id: resellerId,
    month,
    total_fcfa: r?.total_fcfa ?? 0,
    sessions_count: r?.sessions_count ?? 0,
    agents_sold_fcfa: r?.agents_sold_fcfa ?? 0,
    agents_commission_fcfa: r?.agents_commission_fcfa ?? 0,
  };
}
