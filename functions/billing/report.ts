// A reseller's sales report over a span of days, broken down by channel, forfait and hotspot, and as CSV.

import type * as z from 'zod/mini';
import { csvText } from '../core/csv.js';
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

/**
 * The same report as CSV: one line a figure (`kind,key,name,total_fcfa`), totals first; a day's
 * line has its number of sales in `name`.
 */
export function reportCsv(r: Report): string {
  const lines = (kind: string, of: Line[]) => of.map((l) => [kind, l.key, l.name, l.total_fcfa]);
  return csvText([
    ['kind', 'key', 'name', 'total_fcfa'],
    ['total', `${r.from}..${r.to}`, r.currency, r.total_fcfa],
    ['sales_count', '', '', r.sales_count],
    ['provider_fee', '', '', r.provider_fee_fcfa],
    ['commission', '', '', r.commission_fcfa],
    ...lines('hotspot', r.by_hotspot),
    ...lines('forfait', r.by_forfait),
    ...lines('agent', r.by_agent),
    ...lines('channel', r.by_channel),
    ...r.days.map((d) => ['day', d.day, d.sales_count, d.total_fcfa]),
  ]);
}
