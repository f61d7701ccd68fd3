import { randomUUID } from 'node:crypto';
import { assertSeesPayment } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound } from '../core/errors.js';
import { countMetric, log } from '../core/log.js';
import { sendSms } from '../core/sms.js';
import type { Principal } from '../core/tokens.js';
import type { AccessCode } from '../store/access-codes.js';
import type { Entitlement } from '../store/entitlements.js';
import { type Forfait, getForfait, type Offer } from '../store/forfaits.js';
import { getNas } from '../store/nas.js';
import {
  completePayment,
  createPayment,
  failPayment,
  getIdempotencyRecord,
  getPayment,
  type Payment,
  type Provider,
  recordRefusal,
  setPaymentUrl,
} from '../store/payments.js';
import { UNATTRIBUTED } from '../store/revenue.js';
import { aggregator } from './aggregator.js';
import { newCode } from './codes.js';
import { billingSettings } from './settings.js';

const MAX_TRIES = 8;

/** `YYYY-MM` (UTC) of an instant: the month an aggregate counts it in. */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** The entitlement a forfait grants from now. */
export function grant(
  subscriberId: string,
  forfait: Pick<Forfait, 'id'> & Offer,
  source: Entitlement['source'],
  sourceId: string,
  nowMs: number,
): Entitlement {
  return {
    id: source === 'payment' ? sourceId : `V-${sourceId}`,
    subscriber_id: subscriberId,
    source,
    source_id: sourceId,
    forfait_id: forfait.id,
    data_limit_mb: forfait.data_limit_mb,
    cir_kbps: forfait.cir_kbps,
    mir_kbps: forfait.mir_kbps,
    starts_at: clock.iso(nowMs),
    expires_at: clock.iso(nowMs + forfait.duration_hours * 3600_000),
  };
}

async function withUrl(p: Payment): Promise<{ payment_url: string; transaction_id: string }> {
  let url = p.payment_url;
  if (!url) {
    // Written before the aggregator answered (or that call failed): ask again with the same
    // reference; the aggregator deduplicates on it.
    const callback = billingSettings().AGGREGATOR_CALLBACK_URL;
    ({ payment_url: url } = await aggregator().createPayment({
      reference: p.id,
      amount_fcfa: p.amount_fcfa,
      provider: p.provider,
      ...(callback ? { callback_url: callback } : {}),
    }));
    await setPaymentUrl(p.id, url);
  }
  return { payment_url: url, transaction_id: p.id };
}

/** What an idempotency key binds to: the same key with another request is a client bug (409). */
const fingerprint = (input: { forfaitId: string; provider: Provider; nasId?: string }) =>
  JSON.stringify([input.forfaitId, input.provider, input.nasId ?? null]);

/**
 * Opens a payment for a forfait on sale. With an idempotency key, the payment and the key's
 * record are written in one transaction: a repeat (even a parallel one) gets the same payment;
 * the same key with a different forfait, provider or NAS id is refused (409 ERR_CONFLICT).
 */
export async function initiatePayment(input: {
  subscriberId: string;
  msisdn?: string;
  forfaitId: string;
  provider: Provider;
  nasId?: string;
  idempotencyKey?: string;
}): Promise<{ payment_url: string; transaction_id: string }> {
  const key = input.idempotencyKey;
  const request = fingerprint(input);
  const existing = async (): Promise<Payment | undefined> => {
    if (!key) return undefined;
    const record = await getIdempotencyRecord(input.subscriberId, key);
    if (!record) return undefined;
    if (record.request !== undefined && record.request !== request) {
      throw new AppError('ERR_CONFLICT', 'This Idempotency-Key was used for a different request');
    }
    return getPayment(record.payment_id);
  };
  const known = await existing();
  if (known) return withUrl(known);

  const forfait = await getForfait(input.forfaitId);
  if (forfait?.status !== 'active') throw notFound('Forfait');
  let resellerId = UNATTRIBUTED;
  if (input.nasId) {
    const nas = await getNas(input.nasId);
    if (!nas) throw notFound('NAS');
    resellerId = nas.reseller_id;
  }
  for (let i = 0; i < MAX_TRIES; i++) {
    const now = clock.now();
    const payment: Payment = {
      id: randomUUID(),
      subscriber_id: input.subscriberId,
      forfait_id: forfait.id,
      forfait_name: forfait.name,
      offer: {
        duration_hours: forfait.duration_hours,
        data_limit_mb: forfait.data_limit_mb,
        cir_kbps: forfait.cir_kbps,
        mir_kbps: forfait.mir_kbps,
        max_devices: forfait.max_devices,
      },
      amount_fcfa: forfait.price_fcfa,
      provider: input.provider,
      reseller_id: resellerId,
      msisdn: input.msisdn,
      ...(input.nasId ? { nas_id: input.nasId } : {}),
      status: 'pending',
      created_at: clock.iso(now),
      expires_at: clock.iso(now + billingSettings().PAYMENT_TTL_MINUTES * 60_000),
    };
    const outcome = await createPayment(payment, key ? { key, request } : undefined);
    if (outcome === 'created') return withUrl(payment);
    const other = await existing();
    if (other) return withUrl(other);
    // A parallel request holds the key but its payment is not readable yet: try again.
    await new Promise((r) => setTimeout(r, 20 * (i + 1)));
  }
  throw new AppError('ERR_CONFLICT', 'A request with this Idempotency-Key is in progress, retry');
}

/** The status a client sees: a pending payment past its time reads `expired`. */
export function visibleStatus(p: Payment, nowMs: number): string {
  return p.status === 'pending' && Date.parse(p.expires_at) <= nowMs ? 'expired' : p.status;
}

/**
 * Only the paying subscriber or an admin may read a payment; anyone else gets 404. A completed
 * payment also answers its access code (the portal shows it and logs the device in with it).
 */
export async function paymentStatus(id: string, principal: Principal) {
  const p = await getPayment(id);
  assertSeesPayment(principal, p);
  return {
    status: visibleStatus(p, clock.now()),
    amount_fcfa: p.amount_fcfa,
    provider: p.provider,
    ...(p.status === 'completed' && p.access_code ? { access_code: p.access_code } : {}),
  };
}

/** The access code a completed purchase creates: its clock starts with the entitlement. */
function purchaseCode(
  p: Payment,
  offer: Offer & { max_devices?: number },
  e: Entitlement,
  nowMs: number,
): AccessCode {
  return {
    code: newCode(),
    reseller_id: p.reseller_id,
    source: 'payment',
    source_id: p.id,
    subscriber_id: p.subscriber_id,
    forfait_id: p.forfait_id,
    forfait_name: p.forfait_name,
    offer: { ...offer, max_devices: offer.max_devices ?? 1 },
    created_at: clock.iso(nowMs),
    started_at: e.starts_at,
    expires_at: e.expires_at,
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  };
}

/**
 * Texts the code to the buyer. The payment is settled already: a failed SMS is logged, not
 * retried by the aggregator (the portal and the payment status show the code too).
 */
async function textAccessCode(p: Payment, code: string): Promise<void> {
  if (!p.msisdn) return;
  try {
    await sendSms(p.msisdn, `Votre code d'acces WiFi est ${code}. Forfait: ${p.forfait_name}.`);
  } catch (error) {
    log.warn('access code sms failed', { payment: p.id, error: (error as Error).name });
  }
}

export interface WebhookEvent {
  event_id: string;
  transaction_id: string;
  status: 'completed' | 'failed';
  amount_fcfa: number;
  provider: string;
  provider_reference?: string;
}

async function refuse(p: Payment, e: WebhookEvent, reason: string, nowMs: number): Promise<never> {
  await recordRefusal(p.id, {
    event_id: e.event_id,
    at: clock.iso(nowMs),
    reason,
    amount_fcfa: e.amount_fcfa,
    provider: e.provider,
  });
  countMetric('WebhookRefused');
  log.warn('webhook refused', { payment: p.id, reason });
  throw new AppError('ERR_CONFLICT', `Webhook refused: ${reason.replaceAll('_', ' ')}`);
}

/**
 * In http mode (and unless AGGREGATOR_CONFIRM_WEBHOOK=false), a completion is checked against
 * the aggregator's status API before it grants anything: a delivery alone is not enough to give
 * access. Not completed there, or another amount or provider: refused and recorded (409). Still
 * pending there, or the API unreachable: 503, so that the aggregator delivers again later.
 */
async function confirmWithAggregator(p: Payment, e: WebhookEvent, nowMs: number): Promise<void> {
  const agg = aggregator();
  if (!agg.paymentState || billingSettings().AGGREGATOR_CONFIRM_WEBHOOK !== 'true') return;
  const retryLater = (message: string) =>
    new AppError('ERR_UNAVAILABLE', message, { headers: { 'Retry-After': '60' } });
  let state: Awaited<ReturnType<NonNullable<typeof agg.paymentState>>>;
  try {
    state = await agg.paymentState(p.id);
  } catch {
    throw retryLater('Could not confirm the payment with the provider, deliver again later');
  }
  if (state?.status === 'pending') throw retryLater('The provider does not show the payment completed yet');
  if (state?.status !== 'completed') return refuse(p, e, 'not_confirmed', nowMs);
  if (state.amount_fcfa !== p.amount_fcfa || state.provider !== p.provider) {
    return refuse(p, e, 'confirmation_mismatch', nowMs);
  }
}

/**
 * Applies one aggregator delivery (at least once). A seen event or a settled payment changes
 * nothing. An amount or provider that does not match is recorded on the payment and refused
 * (409). A completion after the payment's 30 minutes is honoured: the money was taken.
 */
export async function handleWebhook(e: WebhookEvent): Promise<'applied' | 'unchanged'> {
  let confirmed = false;
  for (let i = 0; i < MAX_TRIES; i++) {
    const p = await getPayment(e.transaction_id);
    if (!p) throw notFound('Payment');
    if (p.status !== 'pending') {
      if (p.status !== e.status) {
        // Changes nothing (a terminal status is final), but someone must look at it: the
        // aggregator now says the opposite of what was settled.
        log.warn('webhook contradicts a settled payment', {
          payment: p.id,
          settled: p.status,
          delivered: e.status,
        });
      }
      return 'unchanged';
    }
    const now = clock.now();
    if (e.amount_fcfa !== p.amount_fcfa) await refuse(p, e, 'amount_mismatch', now);
    if (e.provider !== p.provider) await refuse(p, e, 'provider_mismatch', now);
    let outcome: 'applied' | 'unchanged' | 'conflict';
    if (e.status === 'completed') {
      if (!confirmed) {
        await confirmWithAggregator(p, e, now);
        confirmed = true;
      }
      // The offer was copied onto the payment when it was sold; older payments read the forfait.
      const forfait = p.offer ? { id: p.forfait_id, ...p.offer } : await getForfait(p.forfait_id);
      if (!forfait) throw new Error(`forfait ${p.forfait_id} of payment ${p.id} is gone`);
      const entitlement = grant(p.subscriber_id, forfait, 'payment', p.id, now);
      const access = purchaseCode(p, forfait, entitlement, now);
      const settled = await completePayment({
        payment: p,
        eventId: e.event_id,
        providerReference: e.provider_reference,
        entitlement,
        access,
        month: monthOf(now),
        nowIso: clock.iso(now),
      });
      // A code drawn twice (about 1 in 8e14): draw again.
      outcome = settled === 'code_taken' ? 'conflict' : settled;
      if (outcome === 'applied') {
        countMetric('PaymentCompleted');
        if (Date.parse(p.expires_at) <= now) log.info('late completion honoured', { payment: p.id });
        await textAccessCode(p, access.code);
      }
    } else {
      outcome = await failPayment({ paymentId: p.id, eventId: e.event_id, nowIso: clock.iso(now) });
      if (outcome === 'applied') countMetric('PaymentFailed');
    }
    if (outcome !== 'conflict') return outcome;
    await new Promise((r) => setTimeout(r, 10 * (i + 1)));
  }
  throw new AppError('ERR_UNAVAILABLE', 'Busy, retry the delivery', { headers: { 'Retry-After': '1' } });
}
