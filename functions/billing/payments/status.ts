// A payment's status as its buyer reads it, asking the gateway when it may have moved.

import { assertSeesPayment } from '../../core/access.js';
import { clock } from '../../core/clock.js';
import { log } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import type { Principal } from '../../core/principal.js';
import { claimStatusCheck } from '../../store/payment-checks.js';
import { getPayment, type Payment } from '../../store/payments.js';
import { billingSettings } from '../settings.js';
import { askGateway, canAskGateway } from './gateway-view.js';
import { type Settlement, settle } from './settlement.js';

/** The status a client sees: a pending payment past its time reads `expired`. */
export function visibleStatus(p: Payment, nowMs: number): string {
  return p.status === 'pending' && Date.parse(p.expires_at) <= nowMs ? 'expired' : p.status;
}

/**
 * Whether a status read asks the gateway about this payment now: not completed, at least
 * PAYMENT_CHECK_AFTER_S old, and, once failed or expired, within PAYMENT_LATE_CHECK_HOURS of its
 * creation (a late completion the gateway confirms is still credited).
 */
export function worthAsking(p: Payment, nowMs: number): boolean {
  const s = billingSettings();
  const age = nowMs - Date.parse(p.created_at);
  if (p.status === 'completed' || age < s.PAYMENT_CHECK_AFTER_S * 1000) return false;
  return p.status === 'pending' || age < s.PAYMENT_LATE_CHECK_HOURS * 3600_000;
}

/** What the status read does after a settlement: read the payment again when it changed. */
const CHANGED: Record<Settlement, boolean> = {
  completed: true,
  failed: true,
  refunded: true,
  unchanged: true,
  replayed: false,
  pending: false,
  unknown: false,
  not_confirmed: false,
  unreachable: false,
  ignored: false,
  amount_mismatch: false,
  currency_mismatch: false,
  provider_mismatch: false,
  gateway_mismatch: false,
};

/**
 * Asks the gateway (one attempt, bounded time), at most once per PAYMENT_CHECK_EVERY_S per
 * payment whatever the number of readers, and settles through the same path as a notification.
 * A gateway that does not answer leaves the payment as it is: the read still answers.
 */
async function refresh(p: Payment, nowMs: number): Promise<Payment> {
  if (!worthAsking(p, nowMs) || !canAskGateway(p)) return p;
  const since = clock.iso(nowMs - billingSettings().PAYMENT_CHECK_EVERY_S * 1000);
  if (!(await claimStatusCheck(p.id, clock.iso(nowMs), since))) return p;
  countMetric('PaymentStatusChecked');
  let s: Settlement;
  try {
    s = await settle(p, await askGateway(p, { attempts: 1 }), { source: 'status' });
  } catch (error) {
    log.warn('status check with the gateway failed', { payment: p.id, error: (error as Error).name });
    return p;
  }
  return CHANGED[s] ? ((await getPayment(p.id)) ?? p) : p;
}

/**
 * Only the paying subscriber or an admin may read a payment; anyone else gets 404. An unsettled
 * payment is checked with its gateway (see refresh). A completed payment also answers its access
 * code (the portal shows it and logs the device in with it).
 */
export async function paymentStatus(id: string, principal: Principal) {
  const read = await getPayment(id);
  assertSeesPayment(principal, read);
  const now = clock.now();
  const p = await refresh(read, now);
  return {
    status: visibleStatus(p, now),
    amount_fcfa: p.amount_fcfa,
    currency: p.currency,
    provider: p.provider,
    ...(p.status === 'completed' && p.access_code ? { access_code: p.access_code } : {}),
  };
}
