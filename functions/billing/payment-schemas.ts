// The payments' request and answer schemas: initiate, webhook, notification, status, a reseller's payments, a code resent.

import * as z from 'zod/mini';
import { cursorPage, cursorQuery, schema, uuid } from '../core/schemas.js';

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
