// The generic HTTP aggregator as a payment gateway: a bearer key, and the spec's webhook for its deliveries.

import { config } from '../../core/config.js';
import { billingSettings } from '../settings.js';
import type { GatewayAdapter, GatewayDeclaration, PaymentState } from './port.js';
import { gatewaySecret } from './secret.js';
import { callUpstream, providerRefused, type UpstreamPolicy } from './upstream.js';

const STATES = new Set(['pending', 'completed', 'failed']);

/**
 * The generic aggregator over HTTPS with a bearer key, the one that delivers through the spec
 * webhook (`x-provider-secret`): `POST <base>/payments` opens a payment, `GET
 * <base>/payments/<reference>` reads its state.
 */
function httpAdapter(options: {
  baseUrl: string;
  timeoutMs: number;
  apiKey: () => Promise<string>;
  attempts?: number;
  retryBaseMs?: number;
}): GatewayAdapter {
  const root = options.baseUrl.replace(/\/$/, '');
  const policy = (attempts?: number): UpstreamPolicy => ({
    name: 'http',
    timeoutMs: options.timeoutMs,
    attempts: attempts ?? options.attempts ?? 3,
    retryBaseMs: options.retryBaseMs ?? 200,
  });
  const auth = async () => ({ authorization: `Bearer ${await options.apiKey()}` });

  return {
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

/** The adapter with this deployment's settings and key. */
export const httpFromSettings = (): GatewayAdapter =>
  httpAdapter({
    baseUrl: config().AGGREGATOR_BASE_URL,
    timeoutMs: config().AGGREGATOR_TIMEOUT_MS,
    apiKey: gatewaySecret('AGGREGATOR_API_KEY'),
    retryBaseMs: billingSettings().AGGREGATOR_RETRY_BASE_MS,
  });

/** The generic HTTP aggregator the API specification's webhook was written for. */
export const http = {
  name: 'http',
  secrets: ['AGGREGATOR_API_KEY'],
  notifies: 'spec-webhook',
  settings: [
    'AGGREGATOR_BASE_URL',
    'AGGREGATOR_TIMEOUT_MS',
    'AGGREGATOR_RETRY_BASE_MS',
    'AGGREGATOR_CALLBACK_URL',
  ],
  adapter: httpFromSettings,
} as const satisfies GatewayDeclaration;
