import { randomUUID } from 'node:crypto';
import { assertSeesPayment } from '../core/access.js';
import { clock, monthOf } from '../core/clock.js';
import { config } from '../core/config.js';
import { type Currency, currencyOf } from '../core/currency.js';
import { AppError, notFound } from '../core/errors.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import type { Principal } from '../core/principal.js';
import { sendSms } from '../core/sms.js';
import type { AccessCode } from '../store/access-codes.js';
import { raiseAlertOnce } from '../store/alerts.js';
import type { Entitlement } from '../store/entitlements.js';
import { type Forfait, getForfait, type Offer } from '../store/forfaits.js';
import { getNas } from '../store/nas.js';
import {
  claimStatusCheck,
  completePayment,
  createPayment,
  failPayment,
  getIdempotencyRecord,
  getPayment,
  getPaymentAndEvent,
  type Payment,
  type Provider,
  recordRefusal,
  type SettleOutcome,
  setPaymentUrl,
} from '../store/payments.js';
import { getReseller } from '../store/resellers.js';
import { UNATTRIBUTED, unattributedFor } from '../store/revenue.js';
import {
  type Aggregator,
  aggregatorFor,
  configuredGateway,
  type PaymentRequest,
  type PaymentState,
} from './aggregator.js';
import { newCode } from './codes.js';
import { billingSettings, GATEWAYS, type Gateway } from './settings.js';

const MAX_TRIES = 8;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** The currency a reseller sells in: its country's, else DEFAULT_COUNTRY's. */
export async function resellerCurrency(resellerId: string): Promise<Currency> {
  const profile = resellerId.startsWith(UNATTRIBUTED) ? undefined : await getReseller(resellerId);
  return currencyOf(profile?.country ?? billingSettings().DEFAULT_COUNTRY);
}

/** The gateway of a payment: the one it was opened with (older payments: AGGREGATOR_MODE's). */
const gatewayOf = (p: Pick<Payment, 'gateway'>): Gateway => p.gateway ?? config().AGGREGATOR_MODE;

/** The path a gateway's notifications are posted to (the notify route's). */
export const notifyPath = (gateway: Gateway) => `/api/v1/payments/notify/${gateway}`;

function paymentRequest(p: Payment): PaymentRequest {
  const b = billingSettings();
  const base = config().PUBLIC_BASE_URL.replace(/\/$/, '');
  const notifyBase = (b.PAYMENT_NOTIFY_BASE_URL || base).replace(/\/$/, '');
  const callback = b.AGGREGATOR_CALLBACK_URL;
  return {
    reference: p.id,
    amount_fcfa: p.amount_fcfa,
    currency: p.currency ?? 'XOF',
    provider: p.provider,
    description: `WiFi ${p.forfait_name}`,
    ...(p.msisdn ? { msisdn: p.msisdn } : {}),
    notify_url: `${notifyBase}${notifyPath(gatewayOf(p))}`,
    // Back to the hotspot's portal, which shows the code once the payment completes.
    return_url:
      b.PAYMENT_RETURN_URL ||
      (p.nas_id
        ? `${base}/portal/${encodeURIComponent(p.nas_id)}?payment=${encodeURIComponent(p.id)}`
        : base),
    ...(callback ? { callback_url: callback } : {}),
  };
}

async function withUrl(p: Payment): Promise<{ payment_url: string; transaction_id: string }> {
  let url = p.payment_url;
  if (!url) {
    // Written before the provider answered (or that call failed): ask again with the same
    // reference; providers deduplicate on it where they can.
    const opened = await aggregatorFor(gatewayOf(p)).createPayment(paymentRequest(p));
    url = opened.payment_url;
    await setPaymentUrl(p.id, url, opened.provider_reference);
  }
  return { payment_url: url, transaction_id: p.id };
}

/** What an idempotency key binds to: the same key with another request is a client bug (409). */
const fingerprint = (input: { forfaitId: string; provider: Provider; nasId?: string }) =>
  JSON.stringify([input.forfaitId, input.provider, input.nasId ?? null]);

/**
 * Opens a payment for a forfait on sale, in the currency of the hotspot's reseller, with the
 * configured gateway. With an idempotency key, the payment and the key's record are written in
 * one transaction: a repeat (even a parallel one) gets the same payment; the same key with a
 * different forfait, provider or NAS id is refused (409 ERR_IDEMPOTENCY_MISMATCH).
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
      throw new AppError('ERR_IDEMPOTENCY_MISMATCH', 'This Idempotency-Key was used for a different request');
    }
    return getPayment(record.payment_id);
  };
  const known = await existing();
  if (known) return withUrl(known);

  const forfait = await getForfait(input.forfaitId);
  if (forfait?.status !== 'active') throw notFound('Forfait');
  let resellerId: string | undefined;
  if (input.nasId) {
    const nas = await getNas(input.nasId);
    if (!nas) throw notFound('NAS');
    resellerId = nas.reseller_id;
  }
  const currency = await resellerCurrency(resellerId ?? UNATTRIBUTED);
  const gateway = configuredGateway();
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
      currency,
      provider: input.provider,
      gateway,
      reseller_id: resellerId ?? unattributedFor(currency),
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
    await sleep(20 * (i + 1));
  }
  throw new AppError('ERR_CONFLICT', 'A request with this Idempotency-Key is in progress, retry');
}

/** The status a client sees: a pending payment past its time reads `expired`. */
export function visibleStatus(p: Payment, nowMs: number): string {
  return p.status === 'pending' && Date.parse(p.expires_at) <= nowMs ? 'expired' : p.status;
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

const busy = () =>
  new AppError('ERR_UNAVAILABLE', 'Busy, retry the delivery', { headers: { 'Retry-After': '1' } });

/**
 * THE completion of a payment the provider confirmed (or, for the sandbox, that its delivery
 * reported): the entitlement, the access code, the revenue and pending -> completed in one
 * transaction, then the code texted. Every path that credits goes through here: the spec
 * webhook, a provider notification, a status read and reconciliation. A seen delivery or a
 * payment settled meanwhile changes nothing.
 */
export async function completeConfirmed(
  payment: Payment,
  input: { eventId?: string; providerReference?: string },
): Promise<Exclude<SettleOutcome, 'conflict'>> {
  let p = payment;
  for (let i = 0; i < MAX_TRIES; i++) {
    const now = clock.now();
    // The offer was copied onto the payment when it was sold; older payments read the forfait.
    const forfait = p.offer ? { id: p.forfait_id, ...p.offer } : await getForfait(p.forfait_id);
    if (!forfait) throw new Error(`forfait ${p.forfait_id} of payment ${p.id} is gone`);
    const entitlement = grant(p.subscriber_id, forfait, 'payment', p.id, now);
    const access = purchaseCode(p, forfait, entitlement, now);
    const settled = await completePayment({
      payment: p,
      ...(input.eventId ? { eventId: input.eventId } : {}),
      ...(input.providerReference ? { providerReference: input.providerReference } : {}),
      entitlement,
      access,
      month: monthOf(now),
      nowIso: clock.iso(now),
    });
    if (settled === 'applied') {
      countMetric('PaymentCompleted');
      if (Date.parse(p.expires_at) <= now) log.info('late completion honoured', { payment: p.id });
      await textAccessCode(p, access.code);
      return 'applied';
    }
    if (settled === 'unchanged' || settled === 'replayed') return settled;
    // A transaction conflict, or a code drawn twice (about 1 in 8e14): read again, try again.
    await sleep(10 * (i + 1));
    const fresh = await getPayment(p.id);
    if (fresh?.status !== 'pending') return 'unchanged';
    p = fresh;
  }
  throw busy();
}

/** Fails a pending payment, retrying a transaction conflict. */
async function failConfirmed(p: Payment, eventId?: string): Promise<Exclude<SettleOutcome, 'conflict'>> {
  for (let i = 0; i < MAX_TRIES; i++) {
    const outcome = await failPayment({
      paymentId: p.id,
      ...(eventId ? { eventId } : {}),
      nowIso: clock.iso(),
    });
    if (outcome === 'applied') countMetric('PaymentFailed');
    if (outcome !== 'conflict') return outcome;
    await sleep(10 * (i + 1));
  }
  throw busy();
}

/**
 * Raises one alert per payment for a human (GET /api/v1/alerts): the provider and our record
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
      message: `Payment ${p.id} (${p.amount_fcfa} ${p.currency ?? 'XOF'}, ${gatewayOf(p)}): ${reason}. ${detail}`,
    });
  } catch (error) {
    // The metric and the log line above already tell operations; the caller's answer stands.
    log.error('payment mismatch alert not stored', { payment: p.id, error: (error as Error).name });
  }
}

/** What the provider's status API decided for a pending payment. */
export type Decision =
  /** This call completed it (credited) or failed it. */
  | 'completed'
  | 'failed'
  /** Settled meanwhile by another path; or this very delivery was applied already. */
  | 'unchanged'
  | 'replayed'
  /** The provider still waits for the buyer (or, `unknown`, has no such payment). */
  | 'pending'
  | 'unknown'
  | 'amount_mismatch'
  | 'currency_mismatch'
  | 'provider_mismatch';

/**
 * Acts on the provider's view of a pending payment: completed for the same amount and currency
 * completes it (the one completion path), failed fails it, anything else changes nothing. A
 * completion for another amount or currency is recorded, alerted and never credited.
 */
export async function settleFromState(
  p: Payment,
  state: PaymentState | undefined,
  input: { eventId?: string; source: string },
): Promise<Decision> {
  if (!state) return 'unknown';
  if (state.status === 'pending') return 'pending';
  if (state.status === 'failed') {
    const failed = await failConfirmed(p, input.eventId);
    return failed === 'applied' ? 'failed' : failed;
  }
  const currency = p.currency ?? 'XOF';
  const reason =
    state.amount_fcfa !== p.amount_fcfa
      ? 'amount_mismatch'
      : state.currency !== undefined && state.currency !== currency
        ? 'currency_mismatch'
        : state.provider !== undefined && state.provider !== p.provider
          ? 'provider_mismatch'
          : undefined;
  if (reason) {
    await recordRefusal(p.id, {
      event_id: input.eventId ?? `${input.source}:${clock.iso()}`,
      at: clock.iso(),
      reason: 'confirmation_mismatch',
      amount_fcfa: state.amount_fcfa,
      provider: state.provider ?? p.provider,
      ...(state.currency ? { currency: state.currency } : {}),
    });
    await alertPaymentMismatch(
      p,
      `the provider shows it paid for ${state.amount_fcfa} ${state.currency ?? '(no currency)'}${
        state.provider ? ` with ${state.provider}` : ''
      }`,
      'Nothing was credited: check with the provider, then credit or refund by hand.',
    );
    return reason;
  }
  const completed = await completeConfirmed(p, {
    ...(input.eventId ? { eventId: input.eventId } : {}),
    ...(state.provider_reference ? { providerReference: state.provider_reference } : {}),
  });
  return completed === 'applied' ? 'completed' : completed;
}

/** The provider's view of a payment (undefined: no status API, or it does not know the payment). */
function stateOf(agg: Aggregator, p: Payment, attempts?: number): Promise<PaymentState | undefined> {
  if (!agg.paymentState) return Promise.resolve(undefined);
  return agg.paymentState(
    { reference: p.id, ...(p.provider_reference ? { provider_reference: p.provider_reference } : {}) },
    attempts ? { attempts } : {},
  );
}

/**
 * A pending payment older than PAYMENT_CHECK_AFTER_S whose provider has a status API: ask it
 * (one attempt, bounded time), at most once per PAYMENT_CHECK_EVERY_S per payment whatever the
 * number of readers, and settle through the same path as a notification. A provider that does
 * not answer leaves the payment as it is: the read still answers.
 */
async function refreshFromProvider(p: Payment, nowMs: number): Promise<Payment> {
  const s = billingSettings();
  if (p.status !== 'pending' || nowMs - Date.parse(p.created_at) < s.PAYMENT_CHECK_AFTER_S * 1000) return p;
  const agg = aggregatorFor(gatewayOf(p));
  if (!agg.paymentState) return p;
  const claimed = await claimStatusCheck(
    p.id,
    clock.iso(nowMs),
    clock.iso(nowMs - s.PAYMENT_CHECK_EVERY_S * 1000),
  );
  if (!claimed) return p;
  countMetric('PaymentStatusChecked');
  let decision: Decision;
  try {
    decision = await settleFromState(p, await stateOf(agg, p, 1), { source: 'status' });
  } catch (error) {
    log.warn('status check with the provider failed', { payment: p.id, error: (error as Error).name });
    return p;
  }
  if (decision === 'completed' || decision === 'failed' || decision === 'unchanged') {
    return (await getPayment(p.id)) ?? p;
  }
  return p;
}

/**
 * Only the paying subscriber or an admin may read a payment; anyone else gets 404. A pending
 * payment is checked with its provider (see refreshFromProvider). A completed payment also
 * answers its access code (the portal shows it and logs the device in with it).
 */
export async function paymentStatus(id: string, principal: Principal) {
  const read = await getPayment(id);
  assertSeesPayment(principal, read);
  const now = clock.now();
  const p = await refreshFromProvider(read, now);
  return {
    status: visibleStatus(p, now),
    amount_fcfa: p.amount_fcfa,
    currency: p.currency ?? 'XOF',
    provider: p.provider,
    ...(p.status === 'completed' && p.access_code ? { access_code: p.access_code } : {}),
  };
}

export interface WebhookEvent {
  event_id: string;
  transaction_id: string;
  status: 'completed' | 'failed';
  amount_fcfa: number;
  provider: string;
  provider_reference?: string;
}

async function refuse(
  p: Payment,
  e: { event_id: string; amount_fcfa: number; provider: string; currency?: string },
  reason: string,
  error: AppError,
  metric: 'WebhookRefused' | 'NotificationRefused' = 'WebhookRefused',
): Promise<never> {
  await recordRefusal(p.id, {
    event_id: e.event_id,
    at: clock.iso(),
    reason,
    amount_fcfa: e.amount_fcfa,
    provider: e.provider,
    ...(e.currency ? { currency: e.currency } : {}),
  });
  countMetric(metric);
  log.warn('delivery refused', { payment: p.id, reason });
  throw error;
}

const webhookConflict = (reason: string) =>
  new AppError('ERR_CONFLICT', `Webhook refused: ${reason.replaceAll('_', ' ')}`);

/**
 * A provider says `completed` for a payment we settled `failed` or `expired`: a terminal status
 * never changes, so nothing is credited, but the buyer may have paid: a human decides.
 */
async function contradiction(p: Payment, source: string): Promise<void> {
  if (p.status === 'failed' || p.status === 'expired') {
    await alertPaymentMismatch(
      p,
      `${source} reports it completed after it was settled ${p.status}`,
      'A terminal status never changes: check with the provider, then credit or refund by hand.',
    );
  }
}

const retryLater = (message: string) =>
  new AppError('ERR_UNAVAILABLE', message, { headers: { 'Retry-After': '60' } });

/**
 * Applies one delivery of the spec webhook (at least once). A delivery already applied to this
 * payment, or a settled payment, changes nothing. An amount or provider that does not match is
 * recorded and refused (409). A completion is first confirmed with the gateway's status API
 * (every gateway but the sandbox has one; AGGREGATOR_CONFIRM_WEBHOOK=false skips it): not
 * completed there, or another amount, provider or currency: refused and recorded (409); still
 * pending there, or unreachable: 503, so that the aggregator delivers again.
 */
export async function handleWebhook(e: WebhookEvent): Promise<'applied' | 'unchanged'> {
  const p = await getPayment(e.transaction_id);
  if (!p) throw notFound('Payment');
  if (p.status !== 'pending') {
    if (e.status === 'completed') await contradiction(p, 'the aggregator');
    else if (p.status !== e.status) {
      log.warn('webhook contradicts a settled payment', {
        payment: p.id,
        settled: p.status,
        delivered: e.status,
      });
    }
    return 'unchanged';
  }
  if (e.amount_fcfa !== p.amount_fcfa)
    await refuse(p, e, 'amount_mismatch', webhookConflict('amount_mismatch'));
  if (e.provider !== p.provider)
    await refuse(p, e, 'provider_mismatch', webhookConflict('provider_mismatch'));
  let outcome: Exclude<SettleOutcome, 'conflict'>;
  if (e.status === 'failed') {
    outcome = await failConfirmed(p, e.event_id);
  } else {
    const agg = aggregatorFor(gatewayOf(p));
    if (agg.paymentState && billingSettings().AGGREGATOR_CONFIRM_WEBHOOK === 'true') {
      let state: PaymentState | undefined;
      try {
        state = await stateOf(agg, p);
      } catch {
        throw retryLater('Could not confirm the payment with the provider, deliver again later');
      }
      if (state?.status === 'pending')
        throw retryLater('The provider does not show the payment completed yet');
      if (state?.status !== 'completed')
        return refuse(p, e, 'not_confirmed', webhookConflict('not_confirmed'));
      const decision = await settleFromState(p, state, { eventId: e.event_id, source: 'webhook' });
      if (decision.endsWith('_mismatch')) {
        countMetric('WebhookRefused');
        throw webhookConflict('confirmation_mismatch');
      }
      outcome = decision === 'completed' ? 'applied' : 'unchanged';
    } else {
      outcome = await completeConfirmed(p, {
        eventId: e.event_id,
        ...(e.provider_reference ? { providerReference: e.provider_reference } : {}),
      });
    }
  }
  return outcome === 'applied' ? 'applied' : 'unchanged';
}

/** A gateway named in a notification path, if the service has one. */
export const gatewayNamed = (name: string): Gateway | undefined =>
  (GATEWAYS as readonly string[]).includes(name) ? (name as Gateway) : undefined;

const notificationRefused = (reason: string, error: AppError): AppError => {
  countMetric('NotificationRefused');
  log.warn('provider notification refused', { reason });
  return error;
};

/**
 * A payment provider's notification (CinetPay, FedaPay), on its own function URL. Its signature
 * is checked before anything is read or written; it is then only a prompt: the provider's
 * status API decides, and a completion goes through the one completion path. Refused with a
 * stable code, nothing credited: a bad signature (401 ERR_SIGNATURE_INVALID), a stale one (401
 * ERR_SIGNATURE_STALE), the same notification applied to this payment already (409
 * ERR_NOTIFICATION_REPLAYED), another amount or currency than the payment's (409
 * ERR_AMOUNT_MISMATCH, ERR_CURRENCY_MISMATCH). The provider down: 503, it notifies again.
 */
export async function handleProviderNotification(
  gatewayName: string,
  headers: Record<string, string>,
  rawBody: string,
): Promise<{ status: 'processed' | 'pending' | 'ignored' }> {
  const gateway = gatewayNamed(gatewayName);
  const agg = gateway ? aggregatorFor(gateway) : undefined;
  if (!agg?.verifyNotification) throw notFound('Payment provider');
  let verified: Awaited<ReturnType<NonNullable<Aggregator['verifyNotification']>>>;
  try {
    verified = await agg.verifyNotification(headers, rawBody, clock.now());
  } catch (error) {
    if (error instanceof AppError) throw notificationRefused(error.code, error);
    throw error;
  }
  if (verified.kind === 'ignored' || !UUID.test(verified.notification.payment_id)) {
    log.info('provider notification ignored', {
      gateway,
      reason: verified.kind === 'ignored' ? verified.reason : 'not_ours',
    });
    return { status: 'ignored' };
  }
  const n = verified.notification;
  const { payment: p, seen } = await getPaymentAndEvent(n.payment_id, n.id);
  if (!p) throw notFound('Payment');
  if (seen) {
    throw notificationRefused(
      'replayed',
      new AppError('ERR_NOTIFICATION_REPLAYED', 'This notification was already applied to the payment'),
    );
  }
  if (gatewayOf(p) !== gateway) {
    throw notificationRefused(
      'gateway_mismatch',
      new AppError('ERR_CONFLICT', 'Payment opened with another provider'),
    );
  }
  const claimed = {
    event_id: n.id,
    amount_fcfa: n.amount_fcfa ?? p.amount_fcfa,
    provider: p.provider,
    ...(n.currency ? { currency: n.currency } : {}),
  };
  if (n.amount_fcfa !== undefined && n.amount_fcfa !== p.amount_fcfa) {
    await refuse(
      p,
      claimed,
      'amount_mismatch',
      new AppError('ERR_AMOUNT_MISMATCH', 'Amount differs from the payment'),
      'NotificationRefused',
    );
  }
  if (n.currency !== undefined && n.currency !== (p.currency ?? 'XOF')) {
    await refuse(
      p,
      claimed,
      'currency_mismatch',
      new AppError('ERR_CURRENCY_MISMATCH', 'Currency differs from the payment'),
      'NotificationRefused',
    );
  }
  if (p.status !== 'pending') {
    if (n.status === 'completed') await contradiction(p, gateway as string);
    return { status: 'processed' };
  }
  // Errors of the provider's API propagate: 503 when it is down (the provider notifies again).
  const decision = await settleFromState(p, await stateOf(agg, p), { eventId: n.id, source: 'notification' });
  switch (decision) {
    case 'completed':
    case 'failed':
    case 'unchanged':
      return { status: 'processed' };
    case 'pending':
      return { status: 'pending' };
    case 'replayed':
      throw notificationRefused(
        'replayed',
        new AppError('ERR_NOTIFICATION_REPLAYED', 'This notification was already applied to the payment'),
      );
    case 'amount_mismatch':
      throw notificationRefused(
        decision,
        new AppError('ERR_AMOUNT_MISMATCH', 'The provider confirms another amount'),
      );
    case 'currency_mismatch':
      throw notificationRefused(
        decision,
        new AppError('ERR_CURRENCY_MISMATCH', 'The provider confirms another currency'),
      );
    case 'provider_mismatch':
      throw notificationRefused(
        decision,
        new AppError('ERR_CONFLICT', 'The provider confirms another operator'),
      );
    case 'unknown':
      return refuse(
        p,
        claimed,
        'not_confirmed',
        new AppError('ERR_CONFLICT', 'The provider does not know this payment'),
        'NotificationRefused',
      );
  }
}
