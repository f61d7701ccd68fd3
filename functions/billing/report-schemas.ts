// The sales report's request and answer schemas.

import * as z from 'zod/mini';
import { csvLang, day, schema, uuid } from '../core/schemas.js';

/** The longest report: a year and a day (a leap year's 366 days, both ends counted). */
export const MAX_REPORT_DAYS = 366;

/** A day the calendar has (not 2024-02-30). */
const real = (d: string) => !Number.isNaN(Date.parse(d)) && new Date(d).toISOString().slice(0, 10) === d;

/** A report's `from`..`to`: real days, in order, and at most MAX_REPORT_DAYS days, both ends counted. */
const withinAYear = /* @__PURE__ */ schema(() =>
  z.refine<{ from: string; to: string }>(
    (q) =>
      real(q.from) &&
      real(q.to) &&
      q.from <= q.to &&
      Date.parse(q.to) - Date.parse(q.from) <= (MAX_REPORT_DAYS - 1) * 86_400_000,
    `from must not be after to, and the span is at most ${MAX_REPORT_DAYS} days`,
  ),
);

export const ReportQuery = /* @__PURE__ */ schema(() =>
  z
    .strictObject({ reseller_id: z.optional(uuid()), from: day(), to: day(), lang: z.optional(csvLang()) })
    .check(withinAYear),
);

/** One line of a breakdown: what it is (an id, or a channel), its name, and its sales. */
const ReportLine = /* @__PURE__ */ schema(() =>
  z.object({ key: z.string(), name: z.string(), total_fcfa: z.int() }),
);

export const ReportResponse = /* @__PURE__ */ schema(() =>
  z.object({
    reseller_id: z.string(),
    currency: z.enum(['XOF', 'XAF']),
    from: z.string(),
    to: z.string(),
    /** Sales less refunds over the range: the same books as the month statements'. */
    total_fcfa: z.int(),
    sales_count: z.int(),
    provider_fee_fcfa: z.int(),
    commission_fcfa: z.int(),
    /** Largest first. Hotspot `-`: sold without one (a voucher redeemed through the API). */
    by_hotspot: z.array(ReportLine),
    by_forfait: z.array(ReportLine),
    /** Cash sales by the agent who made them. */
    by_agent: z.array(ReportLine),
    /** `mobile_money`, `voucher`, `cash` (agents), `counter` (the reseller's own top-ups). */
    by_channel: z.array(ReportLine),
    /** Each day with a sale or a refund, oldest first. */
    days: z.array(z.object({ day: z.string(), total_fcfa: z.int(), sales_count: z.int() })),
  }),
);
