// A reseller's sales report over a span of days, broken down by channel, forfait and hotspot, and as CSV.

import type * as z from 'zod/mini';
import { type CsvLang, csvDay, csvText } from '../core/csv.js';
import { listAgents } from '../store/agents.js';
import { NO_HOTSPOT, noBooks } from '../store/books.js';
import { getForfait } from '../store/forfaits.js';
import { Nas } from '../store/nas.js';
import { salesBetween } from '../store/sales.js';
import { resellerCurrency } from './currency.js';
import type { ReportResponse } from './report-schemas.js';

type Report = z.infer<typeof ReportResponse>;
type Line = Report['by_hotspot'][number];

/** A breakdown as lines, largest first, each named (its key when nothing names it). */
const linesOf = (by: Record<string, number>, names: Record<string, string>): Line[] =>
  Object.entries(by)
    .map(([key, total]) => ({ key, name: names[key] ?? key, total_fcfa: total }))
    .sort((a, b) => b.total_fcfa - a.total_fcfa || a.key.localeCompare(b.key));

/**
 * A reseller's sales over `from`..`to` (UTC days, at most a year), from the ledger's day items
 * (functions/store/sales.ts, one Query of at most 366 items, read, never written here): the
 * total and its breakdowns by hotspot, forfait, agent and channel, named. The day items and the
 * month's are booked in the same transactions, so a calendar month here is its statement.
 */
// Access: Query pk=SALES#<reseller_id> sk BETWEEN DAY#<from> AND DAY#<to>; GetItem of the profile; Query RESELLER#<id>#NAS (gsi1); Query RESELLER#<id>#AGENTS (gsi1); GetItem FORFAIT#<id> per forfait sold.
export async function salesReport(resellerId: string, from: string, to: string): Promise<Report> {
  const [days, currency, nas, agents] = await Promise.all([
    salesBetween(resellerId, from, to),
    resellerCurrency(resellerId),
    Nas.queryIndexAll('byReseller', { reseller_id: resellerId }),
    listAgents(resellerId),
  ]);
  const books = noBooks();
  for (const d of days) {
    books.total_fcfa += d.total_fcfa;
    books.sales_count += d.sales_count;
    books.provider_fee_fcfa += d.provider_fee_fcfa;
    books.commission_fcfa += d.commission_fcfa;
    for (const by of ['by_hotspot', 'by_forfait', 'by_channel', 'by_agent'] as const)
      for (const [k, v] of Object.entries(d[by])) books[by][k] = (books[by][k] ?? 0) + v;
  }
  const forfaits = await Promise.all(Object.keys(books.by_forfait).map((id) => getForfait(id)));
  const hotspotName = (n: (typeof nas)[number]) =>
    n.kind === 'site' && n.site_number ? `${n.reseller_name} (site ${n.site_number})` : n.reseller_name;
  return {
    reseller_id: resellerId,
    currency,
    from,
    to,
    total_fcfa: books.total_fcfa,
    sales_count: books.sales_count,
    provider_fee_fcfa: books.provider_fee_fcfa,
    commission_fcfa: books.commission_fcfa,
    by_hotspot: linesOf(books.by_hotspot, {
      [NO_HOTSPOT]: '—',
      ...Object.fromEntries(nas.map((n) => [n.nas_id, `${hotspotName(n)} · ${n.nas_id}`])),
    }),
    by_forfait: linesOf(
      books.by_forfait,
      Object.fromEntries(forfaits.flatMap((f) => (f ? [[f.id, f.name]] : []))),
    ),
    by_agent: linesOf(books.by_agent, Object.fromEntries(agents.map((a) => [a.id, a.name ?? a.id]))),
    by_channel: linesOf(books.by_channel, {}),
    days: days.map((d) => ({ day: d.day, total_fcfa: d.total_fcfa, sales_count: d.sales_count })),
  };
}

const REPORT_CSV = {
  fr: {
    head: ['Rubrique', 'Nom', 'Nombre de ventes', 'Montant (FCFA)'],
    total: 'Total',
    span: (from: string, to: string) => `du ${from} au ${to}`,
    fee: 'Frais mobile money',
    commission: 'Commissions des agents',
    hotspot: 'Hotspot',
    forfait: 'Forfait',
    agent: 'Agent',
    channel: 'Canal',
    day: 'Jour',
    channels: {
      mobile_money: 'Mobile money',
      voucher: 'Tickets',
      cash: 'Espèces (agents)',
      counter: 'Espèces (vous, recharges)',
    } as Record<string, string>,
  },
  en: {
    head: ['Section', 'Name', 'Sales', 'Amount (FCFA)'],
    total: 'Total',
    span: (from: string, to: string) => `${from} to ${to}`,
    fee: 'Mobile money fees',
    commission: "Agents' commission",
    hotspot: 'Hotspot',
    forfait: 'Plan',
    agent: 'Agent',
    channel: 'Channel',
    day: 'Day',
    channels: {
      mobile_money: 'Mobile money',
      voucher: 'Vouchers',
      cash: 'Cash (agents)',
      counter: 'Cash (you, top-ups)',
    } as Record<string, string>,
  },
} as const;

/**
 * The same report as CSV in the reader's language and its spreadsheet's form
 * (functions/core/csv.ts): one line a figure, each named as the console names it (no ids), the
 * total with the number of sales first, then the fee, the commission, each breakdown and each
 * day (day first in French), its number of sales beside its amount.
 */
export function reportCsv(r: Report, lang: CsvLang = 'fr'): string {
  const w = REPORT_CSV[lang];
  const lines = (kind: string, of: Line[], name = (l: Line) => l.name) =>
    of.map((l) => [kind, name(l), '', l.total_fcfa]);
  return csvText(
    [
      w.head,
      [w.total, w.span(csvDay(r.from, lang), csvDay(r.to, lang)), r.sales_count, r.total_fcfa],
      [w.fee, '', '', r.provider_fee_fcfa],
      [w.commission, '', '', r.commission_fcfa],
      // A hotspot by its name only: the console's line adds its NAS id for the operator.
      ...lines(w.hotspot, r.by_hotspot, (l) => l.name.replace(/ · [^ ]+$/, '')),
      ...lines(w.forfait, r.by_forfait),
      ...lines(w.agent, r.by_agent),
      ...lines(w.channel, r.by_channel, (l) => w.channels[l.key] ?? l.name),
      ...r.days.map((d) => [w.day, csvDay(d.day, lang), d.sales_count, d.total_fcfa]),
    ],
    lang,
  );
}
