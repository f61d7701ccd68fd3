// What an agent and its reseller read of the agent's sales: its statement, its sales by day, and their CSV.

import { assertSeesAgent } from '../core/access.js';
import { clock } from '../core/clock.js';
import { type CsvLang, csvDate, csvText } from '../core/csv.js';
import { maskMsisdn } from '../core/log.js';
import { pick } from '../core/pick.js';
import type { AgentScopePrincipal } from '../core/principal.js';
import { type AgentSale, agentCash, agentPeriod, agentSales, getAgent } from '../store/agents.js';
import { getNas } from '../store/nas.js';
import { getReseller } from '../store/resellers.js';

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
    'undone_at',
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

const SALES_CSV = {
  fr: {
    head: [
      'Date',
      'Code',
      'Forfait',
      'Prix (FCFA)',
      'Commission (FCFA)',
      'À reverser (FCFA)',
      'Payé par',
      'Hotspot',
      'Agent',
    ],
    from: { float: 'crédit', stock: 'stock' },
    topup: ' (recharge)',
    undo: ' (vente annulée)',
  },
  en: {
    head: [
      'Date',
      'Code',
      'Plan',
      'Price (FCFA)',
      'Commission (FCFA)',
      'Due (FCFA)',
      'Paid from',
      'Hotspot',
      'Agent',
    ],
    from: { float: 'float', stock: 'stock' },
    topup: ' (top-up)',
    undo: ' (sale undone)',
  },
} as const;

/**
 * An agent's sales of a span as CSV, in the reader's language and its spreadsheet's form
 * (functions/core/csv.ts): one line a sale, its time in the reseller's country, the forfait,
 * the hotspot and the agent by name, the amount owed to the reseller. An undone sale is followed
 * by its undo, at its own time, every amount the opposite: a column's sum is what stands.
 */
export async function salesCsv(
  principal: AgentScopePrincipal,
  id: string,
  from: string,
  to: string,
  lang: CsvLang = 'fr',
) {
  const agent = await getAgent(id);
  assertSeesAgent(principal, agent);
  const [items, reseller] = await Promise.all([
    agentSales(id, ...dayRange(from, to)),
    getReseller(agent.reseller_id),
  ]);
  const hotspots = new Map(
    await Promise.all(
      [...new Set(items.flatMap((s) => (s.nas_id ? [s.nas_id] : [])))].map(
        async (nasId) => [nasId, (await getNas(nasId))?.reseller_name ?? nasId] as const,
      ),
    ),
  );
  const words = SALES_CSV[lang];
  const when = (iso: string | undefined) => csvDate(iso, reseller?.country, lang);
  const line = (s: AgentSale, sign: 1 | -1) => [
    when(sign === 1 ? s.at : s.undone_at),
    s.code,
    `${s.forfait_name}${s.topup ? words.topup : ''}${sign === -1 ? words.undo : ''}`,
    sign * s.price_fcfa,
    sign * s.commission_fcfa,
    sign * (s.price_fcfa - s.commission_fcfa),
    words.from[s.paid_from],
    s.nas_id ? (hotspots.get(s.nas_id) ?? s.nas_id) : '',
    agent.name ?? '',
  ];
  return csvText(
    [words.head, ...items.flatMap((s) => (s.undone_at ? [line(s, 1), line(s, -1)] : [line(s, 1)]))],
    lang,
  );
}
