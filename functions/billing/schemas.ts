import * as z from 'zod/mini';
import { pageQuery, pageSchema, uuid } from '../core/schemas.js';

export const ForfaitSchema = z.object({
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
});

export const ForfaitsQuery = z.strictObject({ ...pageQuery });
export const ForfaitsPage = pageSchema(ForfaitSchema);

export const PROVIDERS = ['orange_money', 'mtn_momo', 'moov_money', 'wave'] as const;
export const Provider = z.enum(PROVIDERS);

export const PaymentInitiateBody = z.strictObject({
  forfait_id: uuid(),
  provider: Provider,
  nas_id: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
});
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,64}$/;
export const PaymentInitiateResponse = z.object({ payment_url: z.string(), transaction_id: z.string() });

export const WebhookBody = z.strictObject({
  event_id: z.string().check(z.minLength(1), z.maxLength(128)),
  transaction_id: uuid(),
  status: z.enum(['completed', 'failed']),
  amount_fcfa: z.int(),
  provider: z.string().check(z.minLength(1), z.maxLength(64)),
  provider_reference: z.optional(z.string().check(z.maxLength(256))),
});
export const WebhookResponse = z.object({ status: z.literal('processed') });

export const IdParams = z.object({ id: uuid() });
export const PaymentStatusResponse = z.object({
  status: z.enum(['pending', 'completed', 'failed', 'expired']),
  amount_fcfa: z.int(),
  provider: z.string(),
  /** Once completed: the access code the purchase created (the payer's and admins' eyes only). */
  access_code: z.optional(z.string()),
});

export const VoucherGenerateBody = z.strictObject({
  forfait_id: uuid(),
  reseller_id: uuid(),
  n: z.int().check(z.gte(1), z.lte(1000)),
});
const VoucherStatus = z.enum(['active', 'redeemed', 'expired']);
export const VoucherGenerateResponse = z.object({
  items: z.array(z.object({ code: z.string(), forfait_id: z.string(), status: VoucherStatus })),
  total: z.int(),
  batch_id: z.string(),
});

export const VoucherRedeemBody = z.strictObject({
  code: z.string().check(z.regex(/^\s*[A-Za-z0-9]{10}\s*$/, 'must be a 10-character voucher code')),
});
export const EntitlementResponse = z.object({
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
});

export const VouchersQuery = z.strictObject({
  reseller_id: z.optional(uuid()),
  status: z.optional(VoucherStatus),
  ...pageQuery,
});
export const VouchersPage = pageSchema(
  z.object({
    code: z.string(),
    forfait_id: z.string(),
    status: VoucherStatus,
    batch_id: z.string(),
    created_at: z.string(),
    redeemed_at: z.optional(z.string()),
  }),
);
export const VoucherExportQuery = z.strictObject({ batch_id: uuid() });

export const SummaryQuery = z.strictObject({
  reseller_id: uuid(),
  month: z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')),
});
export const SummaryResponse = z.object({
  month: z.string(),
  total_fcfa: z.int(),
  split: z.object({ reseller_fcfa: z.int(), operator_fcfa: z.int(), provider_fee_fcfa: z.int() }),
  sessions_count: z.int(),
});
