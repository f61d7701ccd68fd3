// The completion of a PPPoE renewal's payment: the subscriber's next period sold with the payment completed.

import { clock } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import { completeRenewalPayment } from '../../store/payment-settlements.js';
import type { Payment } from '../../store/payments.js';
import { getSubscriber } from '../../store/pppoe.js';
import { untilSettled } from '../../store/retry.js';
import { periodSold } from '../ledger.js';
import { ownPlan, stateOf } from '../pppoe.js';

/**
 * The completion of a renewal's payment (called by the one completion path, `credit`): the
 * payment -> completed and the subscriber's next period sold, in one transaction, counted once
 * whatever races it. A subscriber gone (erased) completes the payment with nothing to sell: a
 * person refunds it (logged).
 */
export async function creditRenewal(
  p: Payment & { pppoe_subscriber_id: string },
  input: { eventId?: string; providerReference?: string },
): Promise<'applied' | 'unchanged' | 'replayed' | 'conflict'> {
  return untilSettled(
    async () => {
      const now = clock.now();
      const s = await getSubscriber(p.pppoe_subscriber_id);
      if (!s) {
        log.error('pppoe renewal paid for a subscriber gone', { payment: p.id });
        throw new AppError('ERR_NOT_FOUND', 'Subscriber gone: refund by hand');
      }
      const plan = await ownPlan(s.reseller_id, s.plan_id);
      const wasOut = stateOf(s, plan, now) === 'expired';
      const sold = periodSold(s, plan, { channel: 'mobile_money', paymentId: p.id }, now);
      const outcome = await completeRenewalPayment({
        payment: p,
        ...(input.eventId ? { eventId: input.eventId } : {}),
        ...(input.providerReference ? { providerReference: input.providerReference } : {}),
        period: sold.items,
        nowIso: clock.iso(now),
      });
      if (outcome === 'raced') return undefined;
      if (outcome === 'applied') {
        countMetric('PppoeRenewed');
        if (wasOut) log.info('pppoe subscriber back from expired', { subscriber: s.id });
      }
      return outcome;
    },
    () => 'conflict' as const,
    8,
  );
}
