// THE settlement of a payment: the one completion path (credit), its failure, its refund taken back, and the gateway's view acted on.

import { clock } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import { sendSms } from '../../core/sms.js';
import { disconnectCode } from '../../radius/disconnect.js';
import { type AccessCode, accessCodeExtend, getAccessCode } from '../../store/access-codes.js';
import {
  completePayment,
  failPayment,
  refundPayment,
  type SettleOutcome,
} from '../../store/payment-settlements.js';
import { getPayment, type Payment } from '../../store/payments.js';
import { untilSettled } from '../../store/retry.js';
import type { PaymentState } from '../gateways/port.js';
import { bookings, grant, newAccessCode, paymentSale, takenBack, toppedUp } from '../ledger.js';
import { paidCodeText } from '../sms-texts.js';
import { assertLive } from '../topups.js';
import { alertPaymentMismatch, recordClaim } from './disputes.js';
import { creditRenewal } from './renewal-credit.js';

/**
 * THE outcome of every payment flow (webhook, gateway notification, status read,
 * reconciliation): each flow answers one of these, and each channel maps it once, as a table
 * (answers.ts for the two HTTP channels, reconcile.ts for the job's counts).
 */
export type Settlement =
  /** This call credited the payment (also a late completion after `failed` or `expired`). */
  | 'completed'
  /** This call failed the pending payment. */
  | 'failed'
  /** This call took a completed payment's code back: the gateway refunded it (fully or partly). */
  | 'refunded'
  /** Nothing to do: settled already by another path, or already in the state reported. */
  | 'unchanged'
  /** This very delivery (event id) was applied to the payment already. */
  | 'replayed'
  /** The gateway still waits for the buyer. */
  | 'pending'
  /** The gateway does not know the payment, or has no status API to ask. */
  | 'unknown'
  /** A completion the gateway's status API does not show completed (recorded, nothing credited). */
  | 'not_confirmed'
  /** The gateway could not be asked (down, timed out, unreadable): try again later. */
  | 'unreachable'
  /** Signed by the gateway but about nothing we sold. */
  | 'ignored'
  /** The delivery or the gateway says another amount, currency or operator (recorded). */
  | 'amount_mismatch'
  | 'currency_mismatch'
  | 'provider_mismatch'
  /** A notification from another gateway than the payment's. */
  | 'gateway_mismatch';

const MAX_TRIES = 8;

/**
 * Texts the code to the buyer. The payment is settled already: a failed SMS is logged, not
 * retried by the gateway (the portal and the payment status show the code too).
 */
async function textAccessCode(p: Payment, code: string): Promise<void> {
  // Shown on screen by the portal that bought it: no SMS (docs/decisions.md, "SMS per sale").
  if (!p.msisdn || p.code_sms === false) return;
  try {
    await sendSms(p.msisdn, await paidCodeText(p, code));
  } catch (error) {
    log.warn('access code sms failed', { payment: p.id, error: (error as Error).name });
  }
}

/** Still racing after every attempt: the gateway delivers again (503). */
const stillBusy = (): never => {
  throw new AppError('ERR_UNAVAILABLE', 'Busy, retry the delivery', { headers: { 'Retry-After': '1' } });
};

/** Whether the store's settling transaction needs another try (a conflict, a code drawn twice). */
const retryable = (o: SettleOutcome | 'code_taken') => o === 'conflict' || o === 'code_taken';

/**
 * THE completion of a payment the gateway confirmed (or, for the sandbox, that its delivery
 * reported): the entitlement, the access code, the sale's bookings and -> completed in one transaction,
 * then the code texted. Every path that credits goes through here. The transaction's condition
 * is "not completed yet": a payment `failed` or `expired` is credited too (the buyer's money was
 * taken), and whatever races it (parallel deliveries, a status read, reconciliation) it is
 * counted once. A seen delivery or a payment completed meanwhile changes nothing.
 */
export async function credit(
  payment: Payment,
  input: { eventId?: string; providerReference?: string } = {},
): Promise<'completed' | 'unchanged' | 'replayed'> {
  let p = payment;
  // A conflict (another delivery, a status read, reconciliation) reads the payment again.
  return untilSettled(
    async () => {
      // A PPPoE renewal sells the subscriber's next period, not a code (renewal-credit.ts).
      if (p.pppoe_subscriber_id) {
        const renewed = await creditRenewal({ ...p, pppoe_subscriber_id: p.pppoe_subscriber_id }, input);
        if (renewed === 'applied') {
          countMetric('PaymentCompleted');
          return 'completed';
        }
        if (renewed !== 'conflict') return renewed;
        const fresh = await getPayment(p.id);
        if (!fresh || fresh.status === 'completed') return 'unchanged';
        p = fresh;
        return undefined;
      }
      const now = clock.now();
      const nowIso = clock.iso(now);
      // What was sold is the offer copied onto the payment at initiation.
      const entitlement = grant(p.subscriber_id, p.forfait_id, p.offer, 'payment', p.id, now);
      // A top-up grows the code in use, while it is live (else the buyer gets a code of its own).
      const topped = p.topup_code ? await liveCode(p.topup_code, p.reseller_id, now) : undefined;
      // The purchase's code: its clock starts with the entitlement.
      const access =
        topped ??
        newAccessCode(
          {
            reseller_id: p.reseller_id,
            source: 'payment',
            source_id: p.id,
            forfait_id: p.forfait_id,
            forfait_name: p.forfait_name,
            offer: p.offer,
          },
          nowIso,
          {
            subscriber_id: p.subscriber_id,
            started_at: entitlement.starts_at,
            expires_at: entitlement.expires_at,
          },
        );
      const settled = await completePayment({
        payment: p,
        ...(topped ? { codeItem: accessCodeExtend(topped, toppedUp(topped, p.offer, now), nowIso) } : {}),
        ...(input.eventId ? { eventId: input.eventId } : {}),
        ...(input.providerReference ? { providerReference: input.providerReference } : {}),
        entitlement,
        access,
        bookings: bookings(paymentSale(p), nowIso),
        nowIso,
      });
      if (settled === 'applied') {
        countMetric('PaymentCompleted');
        if (p.status !== 'pending') log.warn('late completion credited', { payment: p.id, was: p.status });
        else if (Date.parse(p.expires_at) <= now) log.info('late completion honoured', { payment: p.id });
        await textAccessCode(p, access.code);
        return 'completed';
      }
      if (!retryable(settled)) return settled as 'unchanged' | 'replayed';
      const fresh = await getPayment(p.id);
      if (!fresh || fresh.status === 'completed') return 'unchanged';
      p = fresh;
      return undefined;
    },
    stillBusy,
    MAX_TRIES,
  );
}

/** The code a paid top-up grows, read now: undefined when it is no longer live (revoked meanwhile). */
async function liveCode(code: string, resellerId: string, nowMs: number): Promise<AccessCode | undefined> {
  const read = await getAccessCode(code);
  if (read?.reseller_id !== resellerId) return undefined;
  try {
    assertLive(read, nowMs);
    return read;
  } catch {
    return undefined;
  }
}

/** Fails a pending payment, retrying a transaction conflict. */
export async function fail(p: Payment, eventId?: string): Promise<'failed' | 'unchanged' | 'replayed'> {
  return untilSettled(
    async () => {
      const outcome = await failPayment({
        payment: p,
        ...(eventId ? { eventId } : {}),
        nowIso: clock.iso(),
      });
      if (outcome === 'applied') {
        countMetric('PaymentFailed');
        return 'failed';
      }
      return outcome === 'conflict' ? undefined : outcome;
    },
    stillBusy,
    MAX_TRIES,
  );
}

/**
 * Asks the routers to end the refunded code's live sessions (the Disconnect path of a revoked
 * code). The refund is stored already and the code refused at its next authorization, so a
 * failure here is logged, not thrown back at the gateway's delivery. Imported statically: a
 * dynamic import() wraps the module's whole graph lazily, which stops esbuild from tree-shaking
 * the SDK inside it (the payment bundles grew by 60 KB and started 10 % slower).
 */
async function cutSessions(code: string, resellerId: string, nowMs: number): Promise<void> {
  try {
    await disconnectCode({ code, reseller_id: resellerId }, 'code_revoked', nowMs);
  } catch (error) {
    log.error('refunded code: disconnect not requested', { error: (error as Error).name });
  }
}

/**
 * Takes back the code of a payment its gateway refunded (in full or in part), once whatever
 * races it. A payment still pending that the gateway shows refunded was never paid for us: it
 * fails. Anything else (refunded already, failed, expired) changes nothing.
 */
async function takeBack(
  p: Payment,
  eventId?: string,
): Promise<'refunded' | 'failed' | 'unchanged' | 'replayed'> {
  if (p.status === 'pending') return fail(p, eventId);
  if (p.status !== 'completed') return 'unchanged';
  return untilSettled(
    async () => {
      const now = clock.now();
      const nowIso = clock.iso(now);
      // A top-up's refund takes back what it added; the code and what was bought before stay.
      // (Completed as a top-up: its code is the one topped up. A code revoked since needs nothing back.)
      const grown =
        p.topup_code && p.access_code === p.topup_code ? await getAccessCode(p.topup_code) : undefined;
      const topped = grown?.revoked_at ? undefined : grown;
      const outcome = await refundPayment({
        payment: p,
        ...(eventId ? { eventId } : {}),
        ...(topped ? { codeItem: accessCodeExtend(topped, takenBack(topped, p.offer), nowIso, -1) } : {}),
        // The sale unbooked: the opposite of its bookings, in the refund's month and day.
        bookings: bookings(paymentSale(p), nowIso, -1),
        nowIso,
      });
      if (outcome === 'applied') {
        countMetric('PaymentRefunded');
        log.warn('payment refunded: code taken back', { payment: p.id });
        if (p.access_code && !topped) await cutSessions(p.access_code, p.reseller_id, now);
        return 'refunded';
      }
      return outcome === 'conflict' ? undefined : outcome;
    },
    stillBusy,
    MAX_TRIES,
  );
}

/** How the gateway's answer differs from the payment, if it does. */
function mismatch(p: Payment, state: PaymentState): Settlement | undefined {
  if (state.amount_fcfa !== p.amount_fcfa) return 'amount_mismatch';
  if (state.currency !== undefined && state.currency !== p.currency) return 'currency_mismatch';
  if (state.provider !== undefined && state.provider !== p.provider) return 'provider_mismatch';
  return undefined;
}

/**
 * Acts on the gateway's view of a payment (from its status API): completed for the payment's
 * amount and currency credits it (the one completion path, also after `failed` or `expired`);
 * failed fails a pending payment; anything else changes nothing. A completion for another
 * amount, currency or operator is recorded, alerted and never credited: a person decides.
 */
export async function settle(
  p: Payment,
  state: PaymentState | undefined,
  input: { eventId?: string; source: string },
): Promise<Settlement> {
  // A refund (full or partial) takes the code back, whatever the amount refunded.
  if (state?.status === 'refunded') return takeBack(p, input.eventId);
  if (p.status === 'completed' || p.status === 'refunded') return 'unchanged';
  if (!state) return 'unknown';
  if (state.status === 'pending') return 'pending';
  if (state.status === 'failed') return p.status === 'pending' ? fail(p, input.eventId) : 'unchanged';
  const reason = mismatch(p, state);
  if (reason) {
    await recordClaim(
      p,
      {
        event_id: input.eventId ?? `${input.source}:${clock.iso()}`,
        amount_fcfa: state.amount_fcfa,
        provider: state.provider ?? p.provider,
        ...(state.currency ? { currency: state.currency } : {}),
      },
      'confirmation_mismatch',
    );
    await alertPaymentMismatch(
      p,
      `the gateway shows it paid for ${state.amount_fcfa} ${state.currency ?? '(no currency)'}${
        state.provider ? ` with ${state.provider}` : ''
      }`,
      'Nothing was credited: check with the gateway, then credit or refund by hand.',
    );
    return reason;
  }
  return credit(p, {
    ...(input.eventId ? { eventId: input.eventId } : {}),
    ...(state.provider_reference ? { providerReference: state.provider_reference } : {}),
  });
}
