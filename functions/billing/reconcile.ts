// The PaymentReconciliation job, every 5 minutes: Re-check pending payments with their provider: credit the paid, expire the abandoned, alert on a mismatch

import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { log } from '../core/log.js';
import { ageMetric, countMetric } from '../core/metrics.js';
import { claimStatusCheck, listClosedPayments, listPendingPayments } from '../store/payment-checks.js';
import { expirePayment } from '../store/payment-settlements.js';
import type { Payment } from '../store/payments.js';
import { askGateway, canAskGateway } from './payments/gateway-view.js';
import { type Settlement, settle } from './payments/settlement.js';
import { billingSettings } from './settings.js';

/** Checks run side by side: a gateway answers in ~100 ms, a run must end within the Lambda's 10 s. */
const CONCURRENCY = 16;
/** No new check starts after this much of a run (the rest waits for the next run). */

export interface ReconciliationCounts extends Record<string, number> {
  /** Pending payments read from the index this run. */
  pending: number;
  /** Of those, asked of their gateway. */
  checked: number;
  completed: number;
  failed: number;
  expired: number;
  still_pending: number;
  mismatched: number;
  /** Failed or expired payments of the last PAYMENT_LATE_CHECK_HOURS asked again this run. */
  late_checked: number;
  /** Of those, credited: the gateway confirms a completion that came after `failed` or `expired`. */
  late_completed: number;
  /** The gateway did not answer or answered something we cannot act on (tried again next run). */
  errors: number;
  /** Left for the next run (time budget). */
  deferred: number;
}

/** The count each settlement adds to (`wait`: still pending or unknown, maybe expired below). */
const COUNTED: Record<Settlement, 'completed' | 'failed' | 'mismatched' | 'errors' | 'wait' | undefined> = {
  completed: 'completed',
  failed: 'failed',
  // Reconciliation asks about unsettled payments only: a refund is told by the gateway.
  refunded: undefined,
  unchanged: undefined,
  replayed: undefined,
  ignored: undefined,
  pending: 'wait',
  unknown: 'wait',
  not_confirmed: 'wait',
  unreachable: 'errors',
  amount_mismatch: 'mismatched',
  currency_mismatch: 'mismatched',
  provider_mismatch: 'mismatched',
  gateway_mismatch: 'mismatched',
};

/** The gateway's status of one payment, settled through the same path as a notification. */
async function check(p: Payment, counts: ReconciliationCounts): Promise<Settlement> {
  try {
    const state = await askGateway(p);
    return await settle(p, state, { source: 'reconciliation' });
  } catch (error) {
    log.warn('reconciliation check failed', { payment: p.id, error: (error as Error).name });
    counts.errors += 1;
    return 'unreachable';
  }
}

/**
 * One pending payment: its gateway's status decides (a completion credits once, whatever else
 * races it). A payment its gateway does not show paid, past PAYMENT_ABANDON_MINUTES (after the
 * gateway's own deadline), is stored `expired`.
 */
async function reconcilePending(p: Payment, nowMs: number, counts: ReconciliationCounts): Promise<void> {
  if (canAskGateway(p)) counts.checked += 1;
  const s = await check(p, counts);
  const counted = COUNTED[s];
  if (counted === 'errors' || counted === undefined) return;
  if (counted !== 'wait') {
    counts[counted] += 1;
    return;
  }
  const abandonAt = Date.parse(p.created_at) + billingSettings().PAYMENT_ABANDON_MINUTES * 60_000;
  if (nowMs >= abandonAt && (await expirePayment(p, clock.iso(nowMs)))) {
    counts.expired += 1;
    countMetric('PaymentExpired');
    return;
  }
  counts.still_pending += 1;
}

/**
 * One failed or expired payment: asked again (at most once per PAYMENT_LATE_CHECK_EVERY_MIN);
 * a completion its gateway confirms, for its amount and currency, is credited.
 */
async function reconcileClosed(p: Payment, nowMs: number, counts: ReconciliationCounts): Promise<void> {
  if (!canAskGateway(p)) return;
  const since = clock.iso(nowMs - billingSettings().PAYMENT_LATE_CHECK_EVERY_MIN * 60_000);
  if (!(await claimStatusCheck(p.id, clock.iso(nowMs), since))) return;
  counts.late_checked += 1;
  const s = await check(p, counts);
  if (s === 'completed') counts.late_completed += 1;
  else if (COUNTED[s] === 'mismatched') counts.mismatched += 1;
}

/** Runs `each` over the payments, CONCURRENCY at a time, none started past the time budget. */
async function runAll(
  payments: Payment[],
  started: number,
  counts: ReconciliationCounts,
  each: (p: Payment) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < payments.length) {
      const p = payments[next++] as Payment;
      if (Date.now() - started > billingSettings().RECONCILE_BUDGET_MS) counts.deferred += 1;
      else await each(p);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, payments.length) }, worker));
}

/**
 * The reconciliation run (every 5 minutes): pending payments at least PAYMENT_CHECK_AFTER_S old
 * (their notification had its chance), oldest first, RECONCILE_BATCH at most, re-checked with
 * their gateway; then failed or expired payments of the last PAYMENT_LATE_CHECK_HOURS, for late
 * completions. Counts logged and sent as metrics.
 */
async function reconcilePayments(nowMs: number = clock.now()): Promise<ReconciliationCounts> {
  const s = billingSettings();
  const started = Date.now();
  const before = clock.iso(nowMs - s.PAYMENT_CHECK_AFTER_S * 1000);
  const pending = await listPendingPayments(before, s.RECONCILE_BATCH);
  // Oldest first: past PAYMENT_ABANDON_MINUTES a payment is expired, so an older one means the
  // runs do not keep up (alarm OldestPendingPayment).
  ageMetric('OldestPendingPaymentAgeS', pending[0] ? (nowMs - Date.parse(pending[0].created_at)) / 1000 : 0);
  const counts: ReconciliationCounts = {
    pending: pending.length,
    checked: 0,
    completed: 0,
    failed: 0,
    expired: 0,
    still_pending: 0,
    mismatched: 0,
    late_checked: 0,
    late_completed: 0,
    errors: 0,
    deferred: 0,
  };
  await runAll(pending, started, counts, (p) => reconcilePending(p, nowMs, counts));
  const closed = await listClosedPayments(
    clock.iso(nowMs - s.PAYMENT_LATE_CHECK_HOURS * 3600_000),
    clock.iso(nowMs),
    clock.iso(nowMs - s.PAYMENT_LATE_CHECK_EVERY_MIN * 60_000),
    s.RECONCILE_BATCH,
  );
  await runAll(closed, started, counts, (p) => reconcileClosed(p, nowMs, counts));
  countMetric('ReconciliationRun');
  const credited = counts.completed + counts.late_completed;
  if (credited) countMetric('ReconciliationCompleted', credited);
  log.info('payment reconciliation', counts);
  return counts;
}

export const handler = job('PaymentReconciliation', () => reconcilePayments());
