import * as z from 'zod/mini';
import { schema, uuid } from '../core/schemas.js';
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
