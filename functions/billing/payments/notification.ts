// A gateway's own signed notification: its signature checked first, then the payment settled on the gateway's word.

import { clock } from '../../core/clock.js';
import { AppError, notFound } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import { getPaymentAndEvent } from '../../store/payment-settlements.js';
import type { GatewayAdapter, VerifiedNotification } from '../gateways/port.js';
import { adapterFor, type Gateway, gatewayNamed } from '../gateways/registry.js';
import { answer, NOTIFY_ANSWERS } from './answers.js';
import { type Claim, recordClaim } from './disputes.js';
import { askGateway, gatewayOf } from './gateway-view.js';
import { type Settlement, settle } from './settlement.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The notification's signature, checked before anything is read or written (401 when it fails). */
async function verified(agg: GatewayAdapter, headers: Record<string, string>, rawBody: string) {
  try {
    return await (agg.verifyNotification as NonNullable<GatewayAdapter['verifyNotification']>)(
      headers,
      rawBody,
      clock.now(),
    );
  } catch (error) {
    if (error instanceof AppError) {
      countMetric('NotificationRefused');
      log.warn('gateway notification refused', { reason: error.code });
    }
    throw error;
  }
}

/**
 * A verified notification, settled: only a prompt, the gateway's status API decides, and a
 * completion goes through the one completion path (after `failed` or `expired` too). Refused
 * and recorded: another amount or currency than the payment's; refused: the same notification
 * applied already, a payment of another gateway. Errors of the gateway's API propagate (503
 * when it is down: the gateway notifies again).
 */
async function settleNotification(gateway: Gateway, v: VerifiedNotification): Promise<Settlement> {
  if (v.kind === 'ignored' || !UUID.test(v.notification.payment_id)) {
    log.info('gateway notification ignored', {
      gateway,
      reason: v.kind === 'ignored' ? v.reason : 'not_ours',
    });
    return 'ignored';
  }
  const n = v.notification;
  const { payment: p, seen } = await getPaymentAndEvent(n.payment_id, n.id);
  if (!p) throw notFound('Payment');
  if (seen) return 'replayed';
  if (gatewayOf(p) !== gateway) return 'gateway_mismatch';
  const claim: Claim = {
    event_id: n.id,
    amount_fcfa: n.amount_fcfa ?? p.amount_fcfa,
    provider: p.provider,
    ...(n.currency ? { currency: n.currency } : {}),
  };
  // A refund's amount is what was given back, not the price: only the status API decides it.
  const refund = n.status === 'refunded';
  const wrong: Settlement | undefined = refund
    ? undefined
    : n.amount_fcfa !== undefined && n.amount_fcfa !== p.amount_fcfa
      ? 'amount_mismatch'
      : n.currency !== undefined && n.currency !== p.currency
        ? 'currency_mismatch'
        : undefined;
  if (wrong) {
    await recordClaim(p, claim, wrong);
    return wrong;
  }
  // A completed payment is asked about again only when the notification tells of a refund.
  if (p.status === 'refunded' || (p.status === 'completed' && !refund)) return 'unchanged';
  const s = await settle(p, await askGateway(p), { eventId: n.id, source: 'notification' });
  if (s === 'unknown') await recordClaim(p, claim, 'not_confirmed');
  return s;
}

/**
 * A gateway's notification (CinetPay, FedaPay), on its own function URL: the signature checked
 * on the raw body, then settled, then answered through NOTIFY_ANSWERS. `gatewayName` is the
 * path's `{provider}` segment (the spec's name for it).
 */
export async function handleGatewayNotification(
  gatewayName: string,
  headers: Record<string, string>,
  rawBody: string,
): Promise<{ status: 'processed' | 'pending' | 'ignored' }> {
  const gateway = gatewayNamed(gatewayName);
  const agg = gateway ? adapterFor(gateway) : undefined;
  if (!gateway || !agg?.verifyNotification) throw notFound('Payment provider');
  const s = await settleNotification(gateway, await verified(agg, headers, rawBody));
  return answer(NOTIFY_ANSWERS, s, 'NotificationRefused');
}
