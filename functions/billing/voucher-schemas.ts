// The vouchers' request and answer schemas: a batch made, a voucher redeemed, a reseller's vouchers listed and exported.

import * as z from 'zod/mini';
import { csvLang, pageQuery, schema, uuid } from '../core/schemas.js';

import { CODE_LENGTHS, MAX_PREFIX, MIN_RANDOM, VOUCHER_LENGTH } from './codes.js';

/**
 * A batch of vouchers to make (`POST /vouchers/generate`, `POST /vouchers/batches`): the
 * spec's three fields, and the batch's own code length and prefix (functions/billing/codes.ts).
 */
export const VoucherGenerateBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      forfait_id: uuid(),
      reseller_id: uuid(),
      n: z.int().check(z.gte(1), z.lte(1000)),
      /** The codes' length, prefix included (default 10). */
      code_length: z.optional(z.int().check(z.gte(CODE_LENGTHS.min), z.lte(CODE_LENGTHS.max))),
      /** What every code of the batch begins with: up to 4 characters of the codes' alphabet (case ignored). */
      prefix: z.optional(
        z
          .string()
          .check(
            z.maxLength(MAX_PREFIX),
            z.regex(/^[A-HJKMNP-Za-hjkmnp-z2-9]*$/, 'letters and digits but 0, O, 1, I and L'),
          ),
      ),
    })
    .check(
      z.refine<{ code_length?: number; prefix?: string }>(
        (b) => (b.code_length ?? VOUCHER_LENGTH) - (b.prefix?.length ?? 0) >= MIN_RANDOM,
        {
          error: `at least ${MIN_RANDOM} characters of a code are drawn at random: a shorter prefix or a longer code`,
          path: ['prefix'],
        },
      ),
    ),
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
