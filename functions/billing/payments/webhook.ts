// The aggregator's webhook delivery of a payment's outcome, confirmed with its status API before any credit.

import { notFound } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { getPayment, type Payment } from '../../store/payments.js';
import { confirmsPending } from '../gateways/registry.js';
import { answer, WEBHOOK_ANSWERS } from './answers.js';
import { alertUnconfirmedLateCompletion, type Claim, recordClaim } from './disputes.js';
import { askGateway, canAskGateway, gatewayOf } from './gateway-view.js';
import { credit, fail, type Settlement, settle } from './settlement.js';

export interface WebhookEvent {
  event_id: string;
  transaction_id: string;
  status: 'completed' | 'failed';
  amount_fcfa: number;
  provider: string;
  provider_reference?: string;
}

/**
 * A completion delivered for a payment: confirmed with the gateway's status API first (for a
 * pending payment, unless the gateway declares its delivery its word, as the sandbox does, or
 * AGGREGATOR_CONFIRM_WEBHOOK=false; for a late one, always). Still pending there or
 * unreachable: the gateway delivers again; not completed there: refused and recorded (a late
 * one alerted); confirmed: credited, late or not.
 */
async function confirmCompletion(p: Payment, e: WebhookEvent, claim: Claim): Promise<Settlement> {
  const late = p.status !== 'pending';
  const confirm = canAskGateway(p) && (late || confirmsPending(gatewayOf(p)));
  if (!confirm) {
    if (!late) {
      return credit(p, {
        eventId: e.event_id,
        ...(e.provider_reference ? { providerReference: e.provider_reference } : {}),
      });
    }
    await alertUnconfirmedLateCompletion(p, 'the aggregator');
    return 'unchanged';
  }
  let state: Awaited<ReturnType<typeof askGateway>>;
  try {
    state = await askGateway(p);
  } catch {
    return 'unreachable';
  }
  if (state?.status === 'pending') return 'pending';
  if (state?.status !== 'completed') {
    if (late) {
      await alertUnconfirmedLateCompletion(p, 'the aggregator');
      return 'unchanged';
    }
    await recordClaim(p, claim, 'not_confirmed');
    return 'not_confirmed';
  }
  return settle(p, state, { eventId: e.event_id, source: 'webhook' });
}

/**
 * Applies one delivery of the spec webhook (at least once) and answers its settlement. A
 * delivery already applied, or a completed payment, changes nothing. An amount or operator
 * that does not match the payment is recorded and refused (409).
 */
async function settleWebhook(e: WebhookEvent): Promise<Settlement> {
  const p = await getPayment(e.transaction_id);
  if (!p) throw notFound('Payment');
  if (p.status === 'completed' || (p.status !== 'pending' && e.status === 'failed')) {
    if (p.status !== e.status)
      log.warn('webhook contradicts a settled payment', { payment: p.id, settled: p.status });
    return 'unchanged';
  }
  const claim: Claim = { event_id: e.event_id, amount_fcfa: e.amount_fcfa, provider: e.provider };
  const wrong: Settlement | undefined =
    e.amount_fcfa !== p.amount_fcfa
      ? 'amount_mismatch'
      : e.provider !== p.provider
        ? 'provider_mismatch'
        : undefined;
  if (wrong) {
    await recordClaim(p, claim, wrong);
    return wrong;
  }
  if (e.status === 'failed') return fail(p, e.event_id);
  return confirmCompletion(p, e, claim);
}

/** The webhook flow: its settlement and the channel's body for it, or its error (WEBHOOK_ANSWERS). */
export async function webhookAnswer(e: WebhookEvent) {
  const settlement = await settleWebhook(e);
  return { settlement, body: answer(WEBHOOK_ANSWERS, settlement, 'WebhookRefused') };
}
