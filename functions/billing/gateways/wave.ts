// Wave Checkout as a payment gateway: its settings, its adapter (checkout session, status, signed event, refund) and its declaration.

import { log } from '../../core/log.js';
import type { GatewayAdapter, GatewayStatus, PaymentState } from './port.js';
import { signedGateway, timestampedSettings } from './secret.js';
import { type SignedEventScheme, type SignedGatewayOptions, verifiedEvent } from './signatures.js';
import { bearerJsonApi, providerRefused } from './upstream.js';

/**
 * Wave's own settings, declared with it: `WAVE_BASE_URL` (it has no separate sandbox host: test
 * keys are made in the business portal) and `WAVE_TOLERANCE_S`.
 */
export const waveSettings = timestampedSettings('WAVE', 'https://api.wave.com');

/** A checkout session as Wave's API and its webhook events carry it (the fields we read). */
interface WaveSession {
  id?: unknown;
  /** A string of the amount (`"1000"`): Wave sends amounts as decimal strings. */
  amount?: unknown;
  currency?: unknown;
  client_reference?: unknown;
  /** `open` | `complete` | `expired`. */
  checkout_status?: unknown;
  /** `processing` | `cancelled` | `succeeded`, and `refunded` once the merchant refunded it. */
  payment_status?: unknown;
  transaction_id?: unknown;
  wave_launch_url?: unknown;
}

/**
 * The status a session reads as. Paid only when the checkout is `complete` AND its payment
 * `succeeded`; a refunded payment is never paid; an expired checkout or a cancelled payment is
 * a failure; anything else still waits for the buyer.
 */
function statusOf(s: WaveSession): GatewayStatus {
  if (s.payment_status === 'refunded') return 'refunded';
  if (s.checkout_status === 'complete' && s.payment_status === 'succeeded') return 'completed';
  if (s.checkout_status === 'expired' || s.payment_status === 'cancelled') return 'failed';
  return 'pending';
}

/** Wave's amounts are decimal strings (`"1000"`); XOF and XAF have no minor unit. */
const amountOf = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && /^\d+(\.0+)?$/.test(v) ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** A webhook event about a checkout session (the fields we read). */
type WaveEvent = { id?: unknown; data?: WaveSession };

/** The webhook event types about a checkout session, and what each claims (the API decides). */
const EVENTS: Record<string, GatewayStatus> = {
  'checkout.session.completed': 'completed',
  'checkout.session.payment_failed': 'failed',
  'checkout.session.refunded': 'refunded',
};

/** `Wave-Signature: t=<ts>,v1=<hex HMAC-SHA256(secret, <ts><raw body>)>`. */
const WAVE_SIGNATURE = { header: 'wave-signature', key: 'v1', joiner: '' };
const WAVE_EVENTS: SignedEventScheme = { signature: WAVE_SIGNATURE, typeAt: 'type', statuses: EVENTS };

/**
 * Wave Checkout, direct (no aggregator's fee): `POST /v1/checkout/sessions` (`amount`,
 * `currency`, `success_url`, `error_url`, `client_reference` = our payment id, our payment id as
 * its `Idempotency-Key`) answers the session's `id` and its `wave_launch_url`, the page (or the
 * Wave app) the buyer pays in. Its webhook is signed with the endpoint's signing secret:
 * `Wave-Signature: t=<timestamp>,v1=<hex HMAC-SHA256(secret, <timestamp><raw body>)>`, refused
 * past WAVE_TOLERANCE_S. `GET /v1/checkout/sessions/<id>` is what every credit is decided on;
 * `POST /v1/checkout/sessions/<id>/refund` gives the money back.
 */
export function waveAdapter(options: SignedGatewayOptions): GatewayAdapter {
  const call = bearerJsonApi(options);
  const sessionPath = (id: string) => `/v1/checkout/sessions/${encodeURIComponent(id)}`;

  return {
    async createPayment(req) {
      // Wave sends the buyer back to one URL on success and another on error: both the portal,
      // which reads the payment's status (the status API decides, never the return).
      const res = await call('POST', '/v1/checkout/sessions', req.reference, {
        body: {
          amount: String(req.amount_fcfa),
          currency: req.currency,
          client_reference: req.reference,
          success_url: req.return_url,
          error_url: req.return_url,
        },
        // Opening the same payment again (its URL lost) answers the same session.
        idempotencyKey: req.reference,
      });
      const s = res.json as WaveSession | undefined;
      if (res.status >= 400 || typeof s?.id !== 'string' || typeof s.wave_launch_url !== 'string') {
        log.warn('wave refused the checkout session', { status: res.status, reference: req.reference });
        throw providerRefused('The payment provider refused the request');
      }
      return { payment_url: s.wave_launch_url, provider_reference: s.id };
    },

    async paymentState(ref, opts = {}) {
      // The session was never opened at Wave (its creation failed): it has no such payment.
      if (!ref.provider_reference) return undefined;
      const res = await call('GET', sessionPath(ref.provider_reference), ref.reference, {
        ...(opts.attempts ? { attempts: opts.attempts } : {}),
      });
      if (res.status === 404) return undefined;
      if (res.status >= 400) throw providerRefused('The payment provider refused the status request');
      const s = res.json as WaveSession | undefined;
      // The session must be this payment's: a reference pointing elsewhere confirms nothing.
      if (s?.client_reference !== ref.reference) return undefined;
      const amount = amountOf(s.amount);
      if (amount === undefined || typeof s.currency !== 'string') {
        log.warn('wave session not understood', { reference: ref.reference });
        throw providerRefused('Bad provider answer');
      }
      const state: PaymentState = {
        status: statusOf(s),
        amount_fcfa: amount,
        currency: s.currency,
        provider_reference: ref.provider_reference,
      };
      return state;
    },

    async verifyNotification(headers, rawBody, nowMs) {
      const read = await verifiedEvent<WaveEvent>(WAVE_EVENTS, { headers, rawBody, nowMs }, options);
      if (!('claimed' in read)) return read;
      const s = read.event.data;
      // A checkout made outside this service (another integration of the same merchant).
      if (typeof s?.client_reference !== 'string') return { kind: 'ignored', reason: 'not_ours' };
      const amount = amountOf(s.amount);
      return {
        kind: 'payment',
        notification: {
          // Wave's event id (`AE_...`) is unique per event; a redelivery carries the same one.
          id: read.id,
          payment_id: s.client_reference,
          status: read.claimed,
          ...(amount !== undefined ? { amount_fcfa: amount } : {}),
          ...(typeof s.currency === 'string' ? { currency: s.currency } : {}),
          ...(typeof s.id === 'string' ? { provider_reference: s.id } : {}),
        },
      };
    },

    async refund(ref) {
      if (!ref.provider_reference) throw providerRefused('No Wave checkout session for this payment');
      const res = await call('POST', `${sessionPath(ref.provider_reference)}/refund`, ref.reference, {
        idempotencyKey: `refund-${ref.reference}`,
      });
      if (res.status >= 400) {
        log.warn('wave refused the refund', { status: res.status, reference: ref.reference });
        throw providerRefused('The payment provider refused the refund');
      }
    },
  };
}

/** Wave Checkout, direct: its signed webhook, its checkout sessions API, two secrets. */
export const wave = signedGateway('wave', {
  secrets: { apiKey: 'WAVE_API_KEY', webhookSecret: 'WAVE_WEBHOOK_SECRET' },
  settings: [waveSettings, { baseUrl: 'WAVE_BASE_URL', toleranceS: 'WAVE_TOLERANCE_S' }],
  adapter: waveAdapter,
});
