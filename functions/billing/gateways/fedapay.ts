// FedaPay as a payment gateway: its settings, its adapter (transaction, status, signed event) and its declaration.

import { log } from '../../core/log.js';
import type { GatewayAdapter, GatewayStatus, PaymentState } from './port.js';
import { signedGateway, timestampedSettings } from './secret.js';
import { type SignedEventScheme, type SignedGatewayOptions, verifiedEvent } from './signatures.js';
import { bearerJsonApi, providerRefused } from './upstream.js';

/**
 * FedaPay's own settings, declared with it: `FEDAPAY_BASE_URL` (`https://api.fedapay.com` live,
 * `https://sandbox-api.fedapay.com` to test) and `FEDAPAY_TOLERANCE_S`.
 */
export const fedapaySettings = timestampedSettings('FEDAPAY', 'https://api.fedapay.com');

/**
 * A FedaPay transaction's status. Paid: approved, and transferred to the merchant. Refunded, in
 * full or in part (`*_partially_refunded`): the buyer got money back, so the forfait is not paid
 * for: never credited, and a code already given is taken back (settlement.ts `takeBack`).
 */
const STATUS: Record<string, GatewayStatus> = {
  pending: 'pending',
  approved: 'completed',
  transferred: 'completed',
  approved_partially_refunded: 'refunded',
  transferred_partially_refunded: 'refunded',
  refunded: 'refunded',
  declined: 'failed',
  canceled: 'failed',
  expired: 'failed',
};

/** The event names a transaction notification carries, and the status each claims. */
const EVENTS: Record<string, GatewayStatus> = {
  'transaction.created': 'pending',
  'transaction.updated': 'pending',
  'transaction.approved': 'completed',
  'transaction.transferred': 'completed',
  'transaction.declined': 'failed',
  'transaction.canceled': 'failed',
  'transaction.refunded': 'refunded',
  'transaction.partially_refunded': 'refunded',
};

/** `X-FEDAPAY-SIGNATURE: t=<ts>,s=<hex HMAC-SHA256(secret, <ts>.<raw body>)>`. */
const FEDAPAY_SIGNATURE = { header: 'x-fedapay-signature', key: 's', joiner: '.' };
const FEDAPAY_EVENTS: SignedEventScheme = { signature: FEDAPAY_SIGNATURE, typeAt: 'name', statuses: EVENTS };

/** A webhook event about a transaction (the fields we read). */
type FedaPayEvent = { id?: unknown; entity?: FedaPayTransaction };

interface FedaPayTransaction {
  id?: unknown;
  amount?: unknown;
  status?: unknown;
  currency?: { iso?: unknown };
  custom_metadata?: { payment_id?: unknown } | null;
}

/**
 * FedaPay (v1): `POST /v1/transactions` then `POST /v1/transactions/<id>/token` answer the page
 * to pay on; its webhook is signed by `X-FEDAPAY-SIGNATURE: t=..,s=..` = HMAC-SHA256(endpoint
 * secret, `<t>.<raw body>`), refused past the tolerance; `GET /v1/transactions/<id>` is the
 * status every credit is decided on. Our payment id travels in `custom_metadata.payment_id`.
 */
export function fedapayAdapter(options: SignedGatewayOptions): GatewayAdapter {
  const call = bearerJsonApi(options);
  const transactionOf = (json: unknown): FedaPayTransaction | undefined =>
    (json as Record<string, FedaPayTransaction> | undefined)?.['v1/transaction'];

  return {
    async createPayment(req) {
      const created = await call('POST', '/v1/transactions', req.reference, {
        body: {
          description: req.description,
          amount: req.amount_fcfa,
          currency: { iso: req.currency },
          callback_url: req.return_url,
          custom_metadata: { payment_id: req.reference, operator: req.provider },
        },
      });
      const tx = transactionOf(created.json);
      if (created.status >= 400 || (typeof tx?.id !== 'number' && typeof tx?.id !== 'string')) {
        log.warn('fedapay refused the transaction', { status: created.status, reference: req.reference });
        throw providerRefused('The payment provider refused the request');
      }
      const id = String(tx.id);
      const token = await call('POST', `/v1/transactions/${encodeURIComponent(id)}/token`, req.reference);
      const url = (token.json as { url?: unknown } | undefined)?.url;
      if (token.status >= 400 || typeof url !== 'string') {
        log.warn('fedapay refused the token', { status: token.status, reference: req.reference });
        throw providerRefused('The payment provider refused the request');
      }
      return { payment_url: url, provider_reference: id };
    },

    async paymentState(ref, opts = {}) {
      // The page was never opened at FedaPay (its creation failed): it has no such payment.
      if (!ref.provider_reference) return undefined;
      const res = await call(
        'GET',
        `/v1/transactions/${encodeURIComponent(ref.provider_reference)}?include=currency`,
        ref.reference,
        { attempts: opts.attempts },
      );
      if (res.status === 404) return undefined;
      if (res.status >= 400) throw providerRefused('The payment provider refused the status request');
      const tx = transactionOf(res.json);
      // The transaction must be this payment's: a reference pointing elsewhere confirms nothing.
      if (tx?.custom_metadata?.payment_id !== ref.reference) return undefined;
      const status = typeof tx.status === 'string' ? STATUS[tx.status] : undefined;
      if (!status || typeof tx.amount !== 'number') {
        log.warn('fedapay status not understood', { reference: ref.reference, status: String(tx.status) });
        throw providerRefused('Bad provider answer');
      }
      const state: PaymentState = {
        status,
        amount_fcfa: tx.amount,
        provider_reference: ref.provider_reference,
      };
      if (typeof tx.currency?.iso === 'string') state.currency = tx.currency.iso;
      return state;
    },

    async verifyNotification(headers, rawBody, nowMs) {
      const read = await verifiedEvent<FedaPayEvent>(FEDAPAY_EVENTS, { headers, rawBody, nowMs }, options);
      if (!('claimed' in read)) return read;
      const tx = read.event.entity;
      const paymentId = tx?.custom_metadata?.payment_id;
      // A transaction made outside this service (the dashboard, another integration).
      if (typeof paymentId !== 'string' || !tx) return { kind: 'ignored', reason: 'not_ours' };
      return {
        kind: 'payment',
        notification: {
          id: read.id,
          payment_id: paymentId,
          status: read.claimed,
          ...(typeof tx.amount === 'number' ? { amount_fcfa: tx.amount } : {}),
          ...(typeof tx.currency?.iso === 'string' ? { currency: tx.currency.iso } : {}),
          ...(typeof tx.id === 'number' || typeof tx.id === 'string'
            ? { provider_reference: String(tx.id) }
            : {}),
        },
      };
    },
  };
}

/** FedaPay: its signed JSON webhook, its transactions API, two secrets. */
export const fedapay = signedGateway('fedapay', {
  secrets: { apiKey: 'FEDAPAY_API_KEY', webhookSecret: 'FEDAPAY_WEBHOOK_SECRET' },
  settings: [fedapaySettings, { baseUrl: 'FEDAPAY_BASE_URL', toleranceS: 'FEDAPAY_TOLERANCE_S' }],
  adapter: fedapayAdapter,
});
