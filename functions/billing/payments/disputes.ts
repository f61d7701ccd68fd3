// When a gateway and our record disagree about money: the refused claim kept on the payment, and one alert for a person to decide.

import { clock } from '../../core/clock.js';
import { log } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import { raiseAlertOnce } from '../../store/alerts.js';
import { type Payment, recordRefusal } from '../../store/payments.js';
import { gatewayOf } from './gateway-view.js';

/**
 * Raises one alert per payment for a human (GET /api/v1/alerts): the gateway and our record
 * disagree about money. Its "site" is the payment (`payment:<id>`), so that two payments of one
 * hotspot each get theirs and a reconciliation run every few minutes raises it only once.
 */
export async function alertPaymentMismatch(p: Payment, reason: string, detail: string): Promise<void> {
  countMetric('PaymentMismatch');
  log.warn('payment mismatch', { payment: p.id, reason });
  try {
    await raiseAlertOnce({
      type: 'PAYMENT_MISMATCH',
      severity: 'P2',
      site: `payment:${p.id}`,
      ts: clock.iso(),
      message: `Payment ${p.id} (${p.amount_fcfa} ${p.currency}, ${gatewayOf(p)}): ${reason}. ${detail}`,
    });
  } catch (error) {
    // The metric and the log line above already tell operations; the caller's answer stands.
    log.error('payment mismatch alert not stored', { payment: p.id, error: (error as Error).name });
  }
}

/** What a delivery claimed, recorded on the payment when it is refused (kept for audit). */
export interface Claim {
  event_id: string;
  amount_fcfa: number;
  provider: string;
  currency?: string;
}

/** Records a refused claim on the payment (its status untouched), with the reason it was refused. */
export async function recordClaim(p: Payment, claim: Claim, reason: string): Promise<void> {
  await recordRefusal(p.id, {
    event_id: claim.event_id,
    at: clock.iso(),
    reason,
    amount_fcfa: claim.amount_fcfa,
    provider: claim.provider,
    ...(claim.currency ? { currency: claim.currency } : {}),
  });
  log.warn('delivery refused', { payment: p.id, reason });
}

/**
 * A delivery says `completed` for a payment `failed` or `expired` that the gateway's status API
 * does not confirm: nothing is credited, but the buyer may have paid, so a person decides.
 */
export async function alertUnconfirmedLateCompletion(p: Payment, source: string): Promise<void> {
  await alertPaymentMismatch(
    p,
    `${source} reports it completed after it was settled ${p.status}, and the gateway does not confirm it`,
    'Nothing was credited: check with the gateway, then credit or refund by hand.',
  );
}
