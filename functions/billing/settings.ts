import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { intSetting as int } from '../core/schemas.js';

/** Billing's own settings (the shared ones, rates and aggregator mode, are in core/config). */
export const billingSettings = defineSettings(
  z.object({
    /** Minutes a payment stays payable; a pending payment past this reads `expired`. */
    PAYMENT_TTL_MINUTES: z._default(int, 30),
    /** Webhook URL given to the aggregator (http mode); empty: not sent (configured aggregator-side). */
    AGGREGATOR_CALLBACK_URL: z._default(z.string(), ''),
    /** First back-off delay between aggregator attempts, doubled each time. */
    AGGREGATOR_RETRY_BASE_MS: z._default(int, 200),
    /**
     * `true`: before a `completed` delivery grants access, ask the aggregator's status API
     * (http mode only; the sandbox has none) that the payment is completed, for that amount.
     */
    AGGREGATOR_CONFIRM_WEBHOOK: z._default(z.enum(['true', 'false']), 'true'),
    /** Days a voucher may wait, unused, after it was made; past this it is refused. */
    VOUCHER_VALIDITY_DAYS: z._default(int, 180),
  }),
);
