// A PPPoE subscriber's periods sold: by cash at the console, or by mobile money through the payment flow.

import { resellerInScope } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound } from '../core/errors.js';
import { countMetric } from '../core/metrics.js';
import type { OperatorPrincipal } from '../core/principal.js';
import type { Provider } from '../store/payments.js';
import { getSubscriber, type PppoeSubscriber, renewalRaced, sellPeriod } from '../store/pppoe.js';
import { periodSold } from './ledger.js';
import { initiatePayment } from './payments/initiate.js';
import { ownPlan } from './pppoe.js';

/**
 * A period is sold once: its number is the subscriber's `periods + 1` as read, and the store's
 * condition (functions/store/pppoe.ts, `renewalItems`) refuses a second sale of it. A cash
 * renewal names the period it sells (the one the console showed), so a second click, or two
 * cashiers at once, sell it once and the other gets 409 ERR_PERIOD_SOLD. A payment is a sale of
 * its own: when another sale took the period it read, it reads again and sells the next one.
 */

/** The answer of a period sold. */
const soldView = (s: PppoeSubscriber, renewal: { period: number; starts_at: string; ends_at: string }) => ({
  subscriber_id: s.id,
  period: renewal.period,
  starts_at: renewal.starts_at,
  ends_at: renewal.ends_at,
});

/** A cash renewal at the console: period `period` sold if it is the next one, once. */
export async function renewByCash(
  principal: OperatorPrincipal,
  asked: string | undefined,
  id: string,
  period: number,
) {
  const resellerId = resellerInScope(principal, asked);
  const s = await getSubscriber(id);
  if (s?.reseller_id !== resellerId) throw notFound('Subscriber');
  if (s.periods + 1 !== period)
    throw new AppError('ERR_PERIOD_SOLD', `Period ${period} is not the next one (${s.periods + 1})`);
  const plan = await ownPlan(resellerId, s.plan_id);
  const sold = periodSold(s, plan, { channel: 'cash' }, clock.now());
  try {
    await sellPeriod(sold.items);
  } catch (error) {
    if (renewalRaced(error)) throw new AppError('ERR_PERIOD_SOLD', `Period ${period} was sold meanwhile`);
    throw error;
  }
  countMetric('PppoeRenewed');
  return soldView(s, sold.renewal);
}

/**
 * Opens a mobile-money payment for a subscriber's next period, asked by the subscriber (signed
 * in with its phone number, which must be the subscriber's: else 404) from the pay page.
 */
export async function renewByMobileMoney(input: {
  callerSub: string;
  msisdn: string;
  subscriberId: string;
  provider: Provider;
  idempotencyKey?: string;
}) {
  const s = await getSubscriber(input.subscriberId);
  if (!s || s.msisdn !== input.msisdn) throw notFound('Subscriber');
  const plan = await ownPlan(s.reseller_id, s.plan_id);
  return initiatePayment({
    subscriberId: input.callerSub,
    msisdn: input.msisdn,
    forfaitId: plan.id,
    provider: input.provider,
    renewal: { subscriber: s, plan },
    ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
  });
}
