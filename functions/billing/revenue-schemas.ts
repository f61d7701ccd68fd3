// A reseller's revenue schemas: the month's summary (split, channels, agents) and its sales by day.

import * as z from 'zod/mini';
import { day, schema, uuid, withinAQuarter } from '../core/schemas.js';

export const SummaryQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({
    reseller_id: uuid(),
    month: z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')),
  }),
);
export const SummaryResponse = /* @__PURE__ */ schema(() =>
  z.object({
    month: z.string(),
    /** The reseller's currency (its country's): XOF or XAF; the total is in it. */
    currency: z.enum(['XOF', 'XAF']),
    total_fcfa: z.int(),
    split: z.object({ reseller_fcfa: z.int(), operator_fcfa: z.int(), provider_fee_fcfa: z.int() }),
    sessions_count: z.int(),
    /**
     * Added beside the spec's fields: `total_fcfa` by how it was paid. Only `mobile_money` bears
     * the providers' fee.
     */
    /** `cash`: sold by its agents; `counter`: its own top-ups in its console, paid in cash to it. */
    by_channel: z.object({ mobile_money: z.int(), voucher: z.int(), cash: z.int(), counter: z.int() }),
    /**
     * Added beside the spec's fields: of `total_fcfa`, what the reseller's agents sold for cash,
     * the commission they keep, and the reseller's share less that commission.
     */
    agents: z.object({
      sold_fcfa: z.int(),
      commission_fcfa: z.int(),
      reseller_after_commission_fcfa: z.int(),
    }),
  }),
);

/** A reseller's sales by day (at most 93 days: a quarter), from its daily counters. */
export const SalesQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ reseller_id: z.optional(uuid()), from: day(), to: day() }).check(withinAQuarter),
);
export const SalesResponse = /* @__PURE__ */ schema(() =>
  z.object({
    reseller_id: z.string(),
    currency: z.enum(['XOF', 'XAF']),
    from: z.string(),
    to: z.string(),
    /**
     * Days with a sale or a refund only, oldest first: the same books as the month's (a refund
     * counts negative on its own day). `by_hotspot` keys are NAS ids (`-`: none), `by_channel`
     * keys `mobile_money`, `voucher`, `cash` (agents) and `counter` (the reseller's own top-ups),
     * `by_agent` keys agent ids (cash sales).
     */
    days: z.array(
      z.object({
        day: z.string(),
        total_fcfa: z.int(),
        sales_count: z.int(),
        provider_fee_fcfa: z.int(),
        commission_fcfa: z.int(),
        by_hotspot: z.record(z.string(), z.int()),
        by_forfait: z.record(z.string(), z.int()),
        by_channel: z.record(z.string(), z.int()),
        by_agent: z.record(z.string(), z.int()),
      }),
    ),
  }),
);
