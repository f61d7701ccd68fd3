import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { job } from '../core/job.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { expirePayment, listPendingPayments, type Payment } from '../store/payments.js';
import { aggregatorFor } from './aggregator.js';
import { type Decision, settleFromState } from './payments.js';
import { billingSettings } from './settings.js';

/** Checks run side by side: a provider answers in ~100 ms, a run must end within the Lambda's 10 s. */
const CONCURRENCY = 8;
/** No new check starts after this much of a run (the rest waits for the next run). */
const BUDGET_MS = 7000;

export interface ReconciliationCounts extends Record<string, number> {
  /** Pending payments read from the index this run. */
  pending: number;
  /** Of those, asked of their provider. */
  checked: number;
  completed: number;
  failed: number;
  expired: number;
  still_pending: number;
  mismatched: number;
  /** The provider did not answer or answered something we cannot act on (tried again next run). */
  errors: number;
  /** Left for the next run (time budget). */
  deferred: number;
}

/**
 * One pending payment: its provider's status decides, through the same path as a notification
 * (a completion credits once, whatever else races it). A payment its provider does not show
 * paid, past PAYMENT_ABANDON_MINUTES (after the provider's own deadline), is stored `expired`.
 */
async function reconcileOne(p: Payment, nowMs: number, counts: ReconciliationCounts): Promise<void> {
  const agg = aggregatorFor(p.gateway ?? config().AGGREGATOR_MODE);
  let decision: Decision;
  try {
    const state = agg.paymentState
      ? await agg.paymentState({
          reference: p.id,
          ...(p.provider_reference ? { provider_reference: p.provider_reference } : {}),
        })
      : undefined;
    if (agg.paymentState) counts.checked += 1;
    decision = await settleFromState(p, state, { source: 'reconciliation' });
  } catch (error) {
    counts.errors += 1;
    log.warn('reconciliation check failed', { payment: p.id, error: (error as Error).name });
    return;
  }
  if (decision === 'completed' || decision === 'failed') {
    counts[decision] += 1;
    return;
  }
  if (decision === 'unchanged' || decision === 'replayed') return;
  if (decision.endsWith('_mismatch')) {
    counts.mismatched += 1;
    return;
  }
  if (decision === 'pending' || decision === 'unknown') {
    const abandonAt = Date.parse(p.created_at) + billingSettings().PAYMENT_ABANDON_MINUTES * 60_000;
    if (nowMs >= abandonAt && (await expirePayment(p.id, clock.iso(nowMs)))) {
      counts.expired += 1;
      countMetric('PaymentExpired');
      return;
    }
    counts.still_pending += 1;
  }
}

/**
 * The reconciliation run (every 5 minutes): pending payments at least PAYMENT_CHECK_AFTER_S old
 * (their notification had its chance), oldest first, RECONCILE_BATCH at most, re-checked with
 * their provider. Counts logged and sent as metrics.
 */
export async function reconcilePayments(nowMs: number = clock.now()): Promise<ReconciliationCounts> {
  const s = billingSettings();
  const started = Date.now();
  const before = clock.iso(nowMs - s.PAYMENT_CHECK_AFTER_S * 1000);
  const pending = await listPendingPayments(before, s.RECONCILE_BATCH);
  const counts: ReconciliationCounts = {
    pending: pending.length,
    checked: 0,
    completed: 0,
    failed: 0,
    expired: 0,
    still_pending: 0,
    mismatched: 0,
    errors: 0,
    deferred: 0,
  };
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const p = pending[next++] as Payment;
      if (Date.now() - started > BUDGET_MS) {
        counts.deferred += 1;
        continue;
      }
      await reconcileOne(p, nowMs, counts);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, pending.length) }, worker));
  countMetric('ReconciliationRun');
  if (counts.completed) countMetric('ReconciliationCompleted', counts.completed);
  log.info('payment reconciliation', counts);
  return counts;
}

export const handler = job('PaymentReconciliation', () => reconcilePayments());
