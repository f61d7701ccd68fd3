// Billing's own settings: payment lifetimes, reconciliation, late checks, voucher validity.

import * as z from 'zod/mini';
import { clock } from '../core/clock.js';
import { defineSettings, FUNCTION_TIMEOUT_S, worstCallMs } from '../core/config.js';
import { COUNTRIES } from '../core/currency.js';
import { intSetting as int } from '../core/schemas.js';

/** Billing's own settings (the shared ones, rates and aggregator mode, are in core/config). */
export const billingSettings = defineSettings(
  z.object({
    /**
     * THE setting that picks the gateway new payments are opened with: a name of the gateway
     * registry (functions/billing/gateways/registry.ts, which lists them; checked there).
     * Unset: the deprecated aliases PAYMENT_PROVIDER, then AGGREGATOR_MODE.
     */
    PAYMENT_GATEWAY: z.optional(z.string()),
    /** Deprecated alias of PAYMENT_GATEWAY (a "provider" is the buyer's mobile-money operator). */
    PAYMENT_PROVIDER: z.optional(z.string()),
    /**
     * Gateways (comma-separated registry names) the deployment has a contract with, so that the
     * routing table (functions/billing/gateways/routing.ts) may open a country's payments of one
     * operator there directly (e.g. `wave`: Wave payments in SN and CI). Empty: every payment
     * goes to PAYMENT_GATEWAY.
     */
    PAYMENT_DIRECT_GATEWAYS: z._default(z.string(), ''),
    /** Minutes a payment stays payable; a pending payment past this reads `expired`. */
    PAYMENT_TTL_MINUTES: z._default(int, 30),
    /**
     * Minutes after its creation when reconciliation stores a payment the provider never
     * completed as `expired` (past the provider's own payment deadline, so no late completion).
     */
    PAYMENT_ABANDON_MINUTES: z._default(int, 120),
    /**
     * Hours after its creation during which a failed or expired payment is still asked of its
     * gateway (by reconciliation and status reads): a completion the gateway confirms late is
     * credited, the buyer's money having been taken.
     */
    PAYMENT_LATE_CHECK_HOURS: z._default(int, 24),
    /** ... and reconciliation asks about each such payment at most once per this many minutes. */
    PAYMENT_LATE_CHECK_EVERY_MIN: z._default(int, 30),
    /** A pending payment's status read asks the provider once it is this old (seconds). */
    PAYMENT_CHECK_AFTER_S: z._default(int, 60),
    /** ... and at most once per this many seconds per payment. */
    PAYMENT_CHECK_EVERY_S: z._default(int, 30),
    /** Webhook URL given to the aggregator (http mode); empty: not sent (configured aggregator-side). */
    AGGREGATOR_CALLBACK_URL: z._default(z.string(), ''),
    /** First back-off delay between aggregator attempts, doubled each time. */
    AGGREGATOR_RETRY_BASE_MS: z._default(int, 200),
    /**
     * `true`: before a `completed` delivery grants access, ask the aggregator's status API
     * (every gateway but the sandbox has one) that the payment is completed, for that amount.
     */
    AGGREGATOR_CONFIRM_WEBHOOK: z._default(z.enum(['true', 'false']), 'true'),
    /**
     * Base URL of the provider notification function (its Lambda function URL in AWS, the local
     * server locally): CinetPay is told `<base>/api/v1/payments/notify/cinetpay` per payment.
     * Empty: PUBLIC_BASE_URL.
     */
    PAYMENT_NOTIFY_BASE_URL: z._default(z.string(), ''),
    /** Where the provider's page sends the buyer back; empty: the hotspot's portal (or PUBLIC_BASE_URL). */
    PAYMENT_RETURN_URL: z._default(z.string(), ''),
    /** Time one provider call may take, and how many calls at most (5xx, network, timeout). */
    PROVIDER_TIMEOUT_MS: z._default(int, 2500),
    PROVIDER_ATTEMPTS: z._default(int, 3),
    /** Country of resellers with none recorded (and of unattributed payments): its currency. */
    DEFAULT_COUNTRY: z._default(z.enum(COUNTRIES), 'CI'),
    /** Days a voucher may wait, unused, after it was made; past this it is refused. */
    VOUCHER_VALIDITY_DAYS: z._default(int, 180),
    /**
     * The operator's bounds on a reseller's own forfaits: price in FCFA, duration in hours, and
     * how many one reseller may make (hidden ones count: they are kept).
     */
    OWN_FORFAIT_MIN_PRICE_FCFA: z._default(int, 50),
    OWN_FORFAIT_MAX_PRICE_FCFA: z._default(int, 100_000),
    OWN_FORFAIT_MAX_DURATION_HOURS: z._default(int, 2160),
    OWN_FORFAITS_MAX: z._default(int, 50),
    /** Pending payments one reconciliation run re-checks at most (oldest first). */
    RECONCILE_BATCH: z._default(int, 3000),
    /**
     * No new gateway check is started past this many ms of a run: the job's function has 120 s
     * (functions/jobs.ts), and a check started at the budget's end still has 3 attempts' time.
     */
    RECONCILE_BUDGET_MS: z._default(int, 100_000),
  }),
  (v) => [
    ...(v.PROVIDER_ATTEMPTS >= 1 && v.PROVIDER_ATTEMPTS <= 5 ? [] : ['PROVIDER_ATTEMPTS']),
    // Every attempt timing out, with the back-off, ends a second before the function's timeout.
    ...(worstCallMs(v.PROVIDER_TIMEOUT_MS, v.PROVIDER_ATTEMPTS, v.AGGREGATOR_RETRY_BASE_MS) <=
    FUNCTION_TIMEOUT_S * 1000 - 1000
      ? []
      : ['PROVIDER_TIMEOUT_MS']),
    ...(v.PAYMENT_ABANDON_MINUTES >= v.PAYMENT_TTL_MINUTES ? [] : ['PAYMENT_ABANDON_MINUTES']),
    ...(v.OWN_FORFAIT_MIN_PRICE_FCFA <= v.OWN_FORFAIT_MAX_PRICE_FCFA ? [] : ['OWN_FORFAIT_MIN_PRICE_FCFA']),
  ],
);

/** Until when a code made at `nowMs` and not used yet may be (a voucher, an agent's code): VOUCHER_VALIDITY_DAYS. */
export const useByFrom = (nowMs: number): string =>
  clock.iso(nowMs + billingSettings().VOUCHER_VALIDITY_DAYS * 24 * 3600_000);
