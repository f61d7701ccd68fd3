import { config } from '../core/config.js';
import type { Currency } from '../core/currency.js';
import { AppError } from '../core/errors.js';
import { getSecret, type SecretName } from '../core/secrets.js';
import { cinetpayAggregator } from './cinetpay.js';
import { fedapayAggregator } from './fedapay.js';
import { billingSettings, type Gateway } from './settings.js';
import { callUpstream, providerRefused, type UpstreamPolicy } from './upstream.js';

/** What a provider is asked to open: a payment of ours, and where to send the buyer and the news. */
export interface PaymentRequest {
  /** Our payment id: the provider's merchant reference (it deduplicates on it where it can). */
  reference: string;
  amount_fcfa: number;
  currency: Currency;
  /** The mobile-money operator the buyer chose (orange_money, ...). */
  provider: string;
  description: string;
  /** The buyer's number (E.164), when known: some pages fill it in. */
  msisdn?: string;
  /** Where the provider posts its notification for this payment (CinetPay takes it per payment). */
  notify_url: string;
  /** Where the provider's page sends the buyer back. */
  return_url: string;
  /** The generic aggregator's webhook URL (AGGREGATOR_CALLBACK_URL), when configured. */
  callback_url?: string;
}

/** The page to pay on, and the provider's own id of the payment when it has one. */
export interface OpenedPayment {
  payment_url: string;
  provider_reference?: string;
}

export type ProviderStatus = 'pending' | 'completed' | 'failed';

/** The provider's own view of a payment, from its status API: what a credit is decided on. */
export interface PaymentState {
  status: ProviderStatus;
  amount_fcfa: number;
  /** Absent from the generic aggregator, whose API predates currencies. */
  currency?: string;
  /** The operator, where the provider's API tells it (the generic aggregator). */
  provider?: string;
  provider_reference?: string;
}

/** A provider notification whose signature verified: a prompt to ask the status API. */
export interface ProviderNotification {
  /** Unique per notification: the same one seen again for the same payment is a replay. */
  id: string;
  payment_id: string;
  /** What the notification claims; the status API decides. Absent when it claims nothing. */
  status?: ProviderStatus;
  amount_fcfa?: number;
  currency?: string;
  provider_reference?: string;
}

export type VerifiedNotification =
  | { kind: 'payment'; notification: ProviderNotification }
  /** Signed by the provider but about nothing we sell (another event type, another site). */
  | { kind: 'ignored'; reason: string };

/** Where a payment is, for a status check: our id and the provider's. */
export interface PaymentRef {
  reference: string;
  provider_reference?: string;
}

/** The port every payment gateway implements. */
export interface Aggregator {
  readonly gateway: Gateway;
  createPayment(req: PaymentRequest): Promise<OpenedPayment>;
  /**
   * The provider's record of a payment (undefined: it does not know it). Absent from the
   * sandbox, which is the local server itself. `attempts` bounds a call made while a client
   * waits (the status read).
   */
  paymentState?(ref: PaymentRef, options?: { attempts?: number }): Promise<PaymentState | undefined>;
  /**
   * Checks a notification's signature (headers lower-cased, the raw body as received) before
   * anything reads it; throws ERR_SIGNATURE_INVALID or ERR_SIGNATURE_STALE. Absent from
   * gateways that deliver through the spec webhook instead.
   */
  verifyNotification?(
    headers: Record<string, string>,
    rawBody: string,
    nowMs: number,
  ): Promise<VerifiedNotification>;
}

/** Local mode: the local server's sandbox pages play the aggregator (bin/local/sandbox.ts). */
export function sandboxAggregator(baseUrl: string): Aggregator {
  return {
    gateway: 'sandbox',
    createPayment: async (req) => ({
      payment_url: `${baseUrl.replace(/\/$/, '')}/sandbox/pay/${req.reference}`,
    }),
  };
}

const STATES = new Set(['pending', 'completed', 'failed']);

/**
 * The generic aggregator over HTTPS with a bearer key, the one that delivers through the spec
 * webhook (`x-provider-secret`): `POST <base>/payments` opens a payment, `GET
 * <base>/payments/<reference>` reads its state.
 */
export function httpAggregator(options: {
  baseUrl: string;
  timeoutMs: number;
  apiKey: () => Promise<string>;
  attempts?: number;
  retryBaseMs?: number;
}): Aggregator {
  const root = options.baseUrl.replace(/\/$/, '');
  const policy = (attempts?: number): UpstreamPolicy => ({
    name: 'http',
    timeoutMs: options.timeoutMs,
    attempts: attempts ?? options.attempts ?? 3,
    retryBaseMs: options.retryBaseMs ?? 200,
  });
  const auth = async () => ({ authorization: `Bearer ${await options.apiKey()}` });

  return {
    gateway: 'http',
    async createPayment(req) {
      const res = await callUpstream(policy(), {
        method: 'POST',
        url: `${root}/payments`,
        headers: await auth(),
        body: JSON.stringify({
          reference: req.reference,
          amount_fcfa: req.amount_fcfa,
          currency: req.currency,
          provider: req.provider,
          ...(req.callback_url ? { callback_url: req.callback_url } : {}),
        }),
        reference: req.reference,
      });
      if (res.status >= 400) throw providerRefused('The payment provider refused the request');
      const url = (res.json as { payment_url?: unknown } | undefined)?.payment_url;
      if (typeof url !== 'string') throw providerRefused('Bad provider answer');
      return { payment_url: url };
    },

    async paymentState(ref, opts = {}) {
      const res = await callUpstream(policy(opts.attempts), {
        method: 'GET',
        url: `${root}/payments/${encodeURIComponent(ref.reference)}`,
        headers: await auth(),
        reference: ref.reference,
      });
      if (res.status === 404) return undefined;
      if (res.status >= 400) throw providerRefused('The payment provider refused the status request');
      const s = res.json as Partial<Record<keyof PaymentState, unknown>> | undefined;
      if (
        typeof s?.status !== 'string' ||
        !STATES.has(s.status) ||
        typeof s.amount_fcfa !== 'number' ||
        typeof s.provider !== 'string'
      ) {
        throw providerRefused('Bad provider answer');
      }
      return {
        status: s.status as PaymentState['status'],
        amount_fcfa: s.amount_fcfa,
        provider: s.provider,
        ...(typeof s.currency === 'string' ? { currency: s.currency } : {}),
      };
    },
  };
}

/**
 * A provider secret, read when first needed. One the deployment never set (a provider it does
 * not use) makes that provider unknown here (404), not a fault of ours (500); any other failure
 * to read it (the secrets extension unreachable or failing) goes on as it came, a 503.
 */
const secret = (name: SecretName) => () =>
  getSecret(name).catch((error: unknown) => {
    if (error instanceof Error && error.message.endsWith('is not configured')) {
      throw new AppError('ERR_NOT_FOUND', 'Payment provider not configured');
    }
    throw error;
  });

/** The gateway new payments are opened with (PAYMENT_PROVIDER, else AGGREGATOR_MODE). */
export const configuredGateway = (): Gateway =>
  billingSettings().PAYMENT_PROVIDER ?? config().AGGREGATOR_MODE;

/**
 * The adapter of a gateway. A payment is always checked with the gateway it was opened with,
 * so that payments opened before an operator switched providers still settle.
 */
export function aggregatorFor(gateway: Gateway): Aggregator {
  const c = config();
  const b = billingSettings();
  const policy = (name: string): UpstreamPolicy => ({
    name,
    timeoutMs: b.PROVIDER_TIMEOUT_MS,
    attempts: b.PROVIDER_ATTEMPTS,
    retryBaseMs: b.AGGREGATOR_RETRY_BASE_MS,
  });
  switch (gateway) {
    case 'sandbox':
      return sandboxAggregator(c.PUBLIC_BASE_URL);
    case 'http':
      return httpAggregator({
        baseUrl: c.AGGREGATOR_BASE_URL,
        timeoutMs: c.AGGREGATOR_TIMEOUT_MS,
        apiKey: secret('AGGREGATOR_API_KEY'),
        retryBaseMs: b.AGGREGATOR_RETRY_BASE_MS,
      });
    case 'cinetpay':
      return cinetpayAggregator({
        baseUrl: b.CINETPAY_BASE_URL,
        siteId: b.CINETPAY_SITE_ID,
        apiKey: secret('CINETPAY_API_KEY'),
        secretKey: secret('CINETPAY_SECRET_KEY'),
        policy: policy('cinetpay'),
      });
    case 'fedapay':
      return fedapayAggregator({
        baseUrl: b.FEDAPAY_BASE_URL,
        apiKey: secret('FEDAPAY_API_KEY'),
        webhookSecret: secret('FEDAPAY_WEBHOOK_SECRET'),
        toleranceS: b.FEDAPAY_TOLERANCE_S,
        policy: policy('fedapay'),
      });
  }
}

/** The adapter new payments are opened with. */
export const aggregator = (): Aggregator => aggregatorFor(configuredGateway());
