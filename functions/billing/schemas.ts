import * as z from 'zod/mini';
import {
  csvLang,
  cursorPage,
  cursorQuery,
  day,
  pageQuery,
  pageSchema,
  schema,
  uuid,
  withinAQuarter,
} from '../core/schemas.js';
import { TIME_COUNTS } from '../store/forfaits.js';

const ForfaitSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    price_fcfa: z.int(),
    duration_hours: z.int(),
    /** 0: no data cap. */
    data_limit_mb: z.int(),
    cir_kbps: z.int(),
    mir_kbps: z.int(),
    /** Devices that may be online at once with one purchase; 1 when absent. */
    max_devices: z.optional(z.int().check(z.gte(1), z.lte(10))),
    /** When the duration runs: from the first login (absent) or only while connected. */
    time_counts: z.optional(z.enum(TIME_COUNTS)),
  }),
);

/**
 * `nas_id`: the platform's forfaits and, first, those of that hotspot's reseller on sale there
 * (what its portal offers); absent, the platform's only.
 */
export const ForfaitsQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ ...pageQuery, nas_id: z.optional(z.string().check(z.minLength(1), z.maxLength(64))) }),
);
export const ForfaitsPage = /* @__PURE__ */ schema(() => pageSchema(ForfaitSchema));

const PROVIDERS = ['orange_money', 'mtn_momo', 'moov_money', 'wave'] as const;
const Provider = /* @__PURE__ */ schema(() => z.enum(PROVIDERS));

export const PaymentInitiateBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    forfait_id: uuid(),
    provider: Provider,
    nas_id: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    /**
     * Optional, default `sms`: how the access code reaches the buyer. `screen` (the captive
     * portal, which shows it): no SMS at completion; the code stays in GET /api/v1/access/mine.
     */
    code_delivery: z.optional(z.enum(['sms', 'screen'])),
    /** Optional: a top-up of this code in use (the hotspot's reseller's, live), not a new code. */
    topup_code: z.optional(z.string().check(z.regex(/^[A-Za-z0-9 -]{4,32}$/, 'must be an access code'))),
  }),
);
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;
export const PaymentInitiateResponse = /* @__PURE__ */ schema(() =>
  z.object({ payment_url: z.string(), transaction_id: z.string() }),
);

export const WebhookBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    event_id: z.string().check(z.minLength(1), z.maxLength(128)),
    transaction_id: uuid(),
    status: z.enum(['completed', 'failed']),
    amount_fcfa: z.int(),
    provider: z.string().check(z.minLength(1), z.maxLength(64)),
    provider_reference: z.optional(z.string().check(z.maxLength(256))),
  }),
);
export const WebhookResponse = /* @__PURE__ */ schema(() => z.object({ status: z.literal('processed') }));

/** A payment provider's notification, answered once its signature verified. */
export const NotifyResponse = /* @__PURE__ */ schema(() =>
  z.object({
    /** `pending`: the provider still waits for the buyer; `ignored`: signed, but none of our payments. */
    status: z.enum(['processed', 'pending', 'ignored']),
  }),
);

export const IdParams = /* @__PURE__ */ schema(() => z.object({ id: uuid() }));
export const PaymentStatusResponse = /* @__PURE__ */ schema(() =>
  z.object({
    /** `refunded`: the gateway gave the money back after completion; the code was taken back. */
    status: z.enum(['pending', 'completed', 'failed', 'expired', 'refunded']),
    amount_fcfa: z.int(),
    /** XOF (UEMOA) or XAF (CEMAC): the hotspot reseller's country's. */
    currency: z.enum(['XOF', 'XAF']),
    provider: z.string(),
    /** Once completed: the access code the purchase created (the payer's and admins' eyes only). */
    access_code: z.optional(z.string()),
  }),
);

const VoucherStatus = /* @__PURE__ */ schema(() => z.enum(['active', 'redeemed', 'expired']));
export const VoucherGenerateResponse = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(
      z.object({
        code: z.string(),
        forfait_id: z.string(),
        status: VoucherStatus,
        /** Refused unused after this (VOUCHER_VALIDITY_DAYS from its making). */
        use_by: z.optional(z.string()),
      }),
    ),
    total: z.int(),
    batch_id: z.string(),
  }),
);

export const VoucherRedeemBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    // Dashes and spaces between the characters are taken, as at the router and on the portal.
    code: z
      .string()
      .check(
        z.maxLength(40),
        z.regex(/^[\s-]*(?:[A-Za-z0-9][\s-]*){8,12}$/, 'must be a voucher code of 8 to 12 characters'),
      ),
  }),
);
export const EntitlementResponse = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    subscriber_id: z.string(),
    source: z.enum(['payment', 'voucher']),
    source_id: z.string(),
    forfait_id: z.string(),
    data_limit_mb: z.int(),
    cir_kbps: z.int(),
    mir_kbps: z.int(),
    starts_at: z.string(),
    expires_at: z.string(),
  }),
);

export const VouchersQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({
    reseller_id: z.optional(uuid()),
    status: z.optional(VoucherStatus),
    ...pageQuery,
    /** The previous page's `next_cursor`: reads the next page only (it carries its page number). */
    cursor: z.optional(z.string().check(z.maxLength(4096), z.regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/))),
  }),
);
const VoucherItem = /* @__PURE__ */ schema(() =>
  z.object({
    code: z.string(),
    forfait_id: z.string(),
    status: VoucherStatus,
    batch_id: z.string(),
    created_at: z.string(),
    use_by: z.optional(z.string()),
    redeemed_at: z.optional(z.string()),
    /** Its code was revoked (POST /access/{code}/revoke): refused at redemption and at login. */
    revoked_at: z.optional(z.string()),
  }),
);
export const VouchersPage = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(VoucherItem),
    total: z.int(),
    page: z.int(),
    pages: z.int(),
    /** Where the next page starts (absent on the last page): pass it as `cursor`. */
    next_cursor: z.optional(z.string()),
  }),
);
export const VoucherExportQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ batch_id: uuid(), lang: csvLang() }),
);

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

export const ResellerPaymentsQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ reseller_id: z.optional(uuid()), ...cursorQuery() }),
);
export const ResellerPaymentsPage = /* @__PURE__ */ schema(() =>
  cursorPage(
    z.object({
      id: z.string(),
      forfait_name: z.string(),
      amount_fcfa: z.int(),
      status: z.enum(['pending', 'completed', 'failed', 'expired', 'refunded']),
      provider: z.string(),
      created_at: z.string(),
      nas_id: z.optional(z.string()),
      /** The buyer's number, masked (`+225*****5678`). */
      msisdn: z.optional(z.string()),
      access_code: z.optional(z.string()),
      /** Gateway deliveries refused for this payment (amount, currency or provider mismatch). */
      refusal_count: z.int(),
      /** Completed, and its access code never used since: "payé, pas connecté". */
      paid_not_connected: z.boolean(),
    }),
  ),
);

export const UnusedPaymentsQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ reseller_id: z.optional(uuid()) }),
);
export const UnusedPaymentsResponse = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(
      z.object({
        payment_id: z.string(),
        completed_at: z.string(),
        flagged_at: z.string(),
        forfait_name: z.string(),
        amount_fcfa: z.int(),
        nas_id: z.nullable(z.string()),
        msisdn: z.nullable(z.string()),
        access_code: z.string(),
        /** True while the code is still unused ("payé, pas connecté"); false once it was used. */
        paid_not_connected: z.boolean(),
        code_resends: z.int(),
        resends_left: z.int(),
      }),
    ),
  }),
);
export const ResendCodeResponse = /* @__PURE__ */ schema(() =>
  z.object({
    payment_id: z.string(),
    code_resends: z.int(),
    resends_left: z.int(),
  }),
);

// ---- a reseller's own forfaits ----

/** A forfait's name as subscribers read it: no markup, no control or bidirectional character. */
const forfaitName = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(60),
    z.refine(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses.
      (s) => !/[<>\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/.test(s),
      'must not contain < or >, nor control or bidirectional formatting characters',
    ),
  ),
);
const ownFields = /* @__PURE__ */ schema(() => ({
  name: forfaitName,
  price_fcfa: z.int().check(z.gte(1), z.lte(10_000_000)),
  duration_hours: z.int().check(z.gte(1), z.lte(8760)),
  data_limit_mb: z.int().check(z.gte(0), z.lte(10_000_000)),
  cir_kbps: z.int().check(z.gte(0), z.lte(1_000_000)),
  mir_kbps: z.int().check(z.gte(64), z.lte(1_000_000)),
  max_devices: z.int().check(z.gte(1), z.lte(10)),
  time_counts: z.enum(TIME_COUNTS),
  /** Empty or absent: all of the reseller's hotspots. */
  nas_ids: z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(50)),
  hidden: z.boolean(),
}));
const { name, price_fcfa, duration_hours, data_limit_mb, cir_kbps, mir_kbps, ...optionalOwn } = ownFields;
const atMostGuaranteed = (f: { cir_kbps?: number; mir_kbps?: number }) =>
  f.cir_kbps === undefined || f.mir_kbps === undefined || f.cir_kbps <= f.mir_kbps;

export const OwnForfaitQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ reseller_id: z.optional(uuid()) }),
);
export const OwnForfaitParams = /* @__PURE__ */ schema(() => z.strictObject({ id: uuid() }));
export const OwnForfaitCreateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      name,
      price_fcfa,
      duration_hours,
      data_limit_mb,
      cir_kbps,
      mir_kbps,
      max_devices: z.optional(optionalOwn.max_devices),
      time_counts: z.optional(optionalOwn.time_counts),
      nas_ids: z.optional(optionalOwn.nas_ids),
      hidden: z.optional(optionalOwn.hidden),
    })
    .check(z.refine(atMostGuaranteed, { message: 'cir_kbps must not exceed mir_kbps', path: ['cir_kbps'] })),
);
export const OwnForfaitUpdateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      name: z.optional(name),
      price_fcfa: z.optional(price_fcfa),
      duration_hours: z.optional(duration_hours),
      data_limit_mb: z.optional(data_limit_mb),
      cir_kbps: z.optional(cir_kbps),
      mir_kbps: z.optional(mir_kbps),
      max_devices: z.optional(optionalOwn.max_devices),
      time_counts: z.optional(optionalOwn.time_counts),
      nas_ids: z.optional(optionalOwn.nas_ids),
      hidden: z.optional(optionalOwn.hidden),
      /** The place in the reseller's list (ascending; ties by id). */
      position: z.optional(z.int().check(z.gte(0), z.lte(999_999))),
    })
    .check(
      z.refine((b) => Object.keys(b).length > 0, 'nothing to change'),
      z.refine(atMostGuaranteed, { message: 'cir_kbps must not exceed mir_kbps', path: ['cir_kbps'] }),
    ),
);
export const OwnForfaitSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    price_fcfa: z.int(),
    duration_hours: z.int(),
    data_limit_mb: z.int(),
    cir_kbps: z.int(),
    mir_kbps: z.int(),
    max_devices: z.int(),
    time_counts: z.enum(TIME_COUNTS),
    nas_ids: z.array(z.string()),
    position: z.int(),
    hidden: z.boolean(),
    updated_at: z.string(),
  }),
);
export const OwnForfaitsList = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(OwnForfaitSchema),
    bounds: z.object({
      min_price_fcfa: z.int(),
      max_price_fcfa: z.int(),
      max_duration_hours: z.int(),
      max_count: z.int(),
    }),
  }),
);
