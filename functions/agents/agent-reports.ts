// What an agent and its reseller read of the agent's sales: its statement, its sales by day, and their CSV.

import { assertSeesAgent } from '../core/access.js';
import { clock } from '../core/clock.js';
import { maskMsisdn } from '../core/log.js';
import { pick } from '../core/pick.js';
import type { AgentScopePrincipal } from '../core/principal.js';
import { type AgentSale, agentCash, agentPeriod, agentSales, getAgent } from '../store/agents.js';

/** What an agent and its reseller read of the agent's sales: its statement, its sales, as CSV. */

/** A sale as its agent and reseller see it: the buyer's number masked. */
export const shownSale = (s: AgentSale) => ({
  ...pick(
    s,
    'at',
    'code',
    'forfait_id',
    'forfait_name',
    'price_fcfa',
    'commission_fcfa',
    'paid_from',
    'nas_id',
  ),
  ...(s.buyer_msisdn ? { buyer_msisdn: maskMsisdn(s.buyer_msisdn) } : {}),
  ...(s.topup ? { topup: true as const } : {}),
});

const periodView = (p: {
  period: string;
  sold_fcfa: number;
  commission_fcfa: number;
  sales_count: number;
}) => ({
  ...pick(p, 'period', 'sold_fcfa', 'commission_fcfa', 'sales_count'),
  due_fcfa: p.sold_fcfa - p.commission_fcfa,
});

/** The agent's day and month (UTC), balance and the cash it handed over. */
export async function statement(principal: AgentScopePrincipal, id: string) {
  const agent = await getAgent(id);
  assertSeesAgent(principal, agent);
  const now = clock.iso();
  const [today, month, cash] = await Promise.all([
    agentPeriod(id, now.slice(0, 10)),
    agentPeriod(id, now.slice(0, 7)),
    agentCash(id, 20),
  ]);
  return {
    agent,
    today: periodView(today),
    month: periodView(month),
    cash: cash.map((c) => ({ at: c.at, amount_fcfa: c.amount_fcfa })),
  };
}

const dayRange = (from: string, to: string): [string, string] => [
  `${from}T00:00:00.000Z`,
  `${to}T23:59:59.999Z`,
];

export async function salesOf(
  principal: AgentScopePrincipal,
  id: string,
  from: string,
  to: string,
  limit: number,
  q?: string,
) {
  assertSeesAgent(principal, await getAgent(id));
  if (q === undefined) return { items: (await agentSales(id, ...dayRange(from, to), limit)).map(shownSale) };
  const found = (await agentSales(id, ...dayRange(from, to))).filter(matches(q));
  return { items: found.slice(0, limit).map(shownSale) };
}

/**
 * A cashier's search: a code typed as it is printed (spaces, dashes and case ignored; part of it
 * is enough), or the buyer's number as people write it (stored masked: its last four digits match).
 */
function matches(q: string) {
  const code = q.toUpperCase().replace(/[\s-]/g, '');
  const digits = q.replace(/\D/g, '');
  return (s: AgentSale) =>
    (code.length >= 3 && s.code.includes(code)) ||
    (digits.length >= 4 && s.buyer_msisdn !== undefined && s.buyer_msisdn.endsWith(digits.slice(-4)));
}

const csvCell = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** An agent's sales of a span as CSV: one line a sale, the amount owed to the reseller included. */
export async function salesCsv(principal: AgentScopePrincipal, id: string, from: string, to: string) {
  assertSeesAgent(principal, await getAgent(id));
  const items = await agentSales(id, ...dayRange(from, to));
  const header = 'at,code,forfait_id,forfait_name,price_fcfa,commission_fcfa,due_fcfa,paid_from,nas_id';
  const rows = items.map((s) =>
    [
      s.at,
      s.code,
      s.forfait_id,
      s.forfait_name,
      String(s.price_fcfa),
      String(s.commission_fcfa),
      String(s.price_fcfa - s.commission_fcfa),
      s.paid_from,
      s.nas_id ?? '',
    ]
      .map(csvCell)
      .join(','),
  );
  return `${[header, ...rows].join('\n')}\n`;
}
