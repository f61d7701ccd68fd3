// CinetPay as a payment gateway: its settings, its adapter (payment, status, signed notification) and its declaration.

import * as z from 'zod/mini';
import { defineSettings } from '../../core/config.js';
import { log } from '../../core/log.js';
import type { GatewayAdapter, GatewayStatus, PaymentState } from './port.js';
import { signedGateway } from './secret.js';
import { anySignatureMatches, badSignature, secretKeys } from './signatures.js';
import { callUpstream, providerRefused, type UpstreamPolicy } from './upstream.js';

/** CinetPay's own settings, declared with it (a gateway's settings live in its module). */
export const cinetpaySettings = defineSettings(
  z.object({
    CINETPAY_BASE_URL: z._default(z.string(), 'https://api-checkout.cinetpay.com'),
    /** CinetPay's site_id (not a secret: it is in every notification). */
    CINETPAY_SITE_ID: z._default(z.string(), ''),
  }),
);

/**
 * The fields of a CinetPay notification, in the order its x-token HMAC concatenates them
 * (docs/payments.md). A field the notification lacks counts as empty.
 */
const CINETPAY_SIGNED_FIELDS = [
  'cpm_site_id',
  'cpm_trans_id',
  'cpm_trans_date',
  'cpm_amount',
  'cpm_currency',
  'signature',
  'payment_method',
  'cel_phone_num',
  'cpm_phone_prefixe',
  'cpm_language',
  'cpm_version',
  'cpm_payment_config',
  'cpm_page_action',
  'cpm_custom',
  'cpm_designation',
  'cpm_error_message',
] as const;

/** What the x-token of a notification signs: its fields concatenated, in the documented order. */
const cinetpaySignedString = (form: URLSearchParams): string =>
  CINETPAY_SIGNED_FIELDS.map((f) => form.get(f) ?? '').join('');

/**
 * `data.status` of /v2/payment/check. The WAITING_* statuses are a payment the buyer has not
 * approved yet (some operators confirm by a push on the phone): still pending, never a failure.
 */
const STATUS: Record<string, GatewayStatus> = {
  ACCEPTED: 'completed',
  REFUSED: 'failed',
  CREATED: 'pending',
  PENDING: 'pending',
  WAITING_FOR_CUSTOMER: 'pending',
  WAITING_CUSTOMER_TO_VALIDATE: 'pending',
  WAITING_CUSTOMER_PAYMENT: 'pending',
  WAITING_CUSTOMER_OTP_CODE: 'pending',
  WAITING_CUSTOMER_PAYMENT_AT_OPERATOR_SIDE: 'pending',
};

/**
 * CinetPay (api-checkout v2): `POST /v2/payment` opens a payment and answers `data.payment_url`;
 * its notification is a form POST signed by `x-token` = HMAC-SHA256(secret key, 16 fields);
 * `POST /v2/payment/check` is the status every credit is decided on. The API key travels in the
 * JSON body, as CinetPay requires.
 */
export function cinetpayAdapter(options: {
  baseUrl: string;
  siteId: string;
  apiKey: () => Promise<string>;
  secretKey: () => Promise<string>;
  policy: UpstreamPolicy;
}): GatewayAdapter {
  const root = options.baseUrl.replace(/\/$/, '');
  const post = async (path: string, reference: string, body: Record<string, unknown>, attempts?: number) =>
    callUpstream(
      { ...options.policy, ...(attempts ? { attempts } : {}) },
      {
        method: 'POST',
        url: `${root}${path}`,
        body: JSON.stringify({ apikey: await options.apiKey(), site_id: options.siteId, ...body }),
        reference,
      },
    );

  return {
    async createPayment(req) {
      const res = await post('/v2/payment', req.reference, {
        transaction_id: req.reference,
        amount: req.amount_fcfa,
        currency: req.currency,
        // CinetPay advises against #/$_& in the description.
        description: req.description.replace(/[#/$_&]/g, ' '),
        notify_url: req.notify_url,
        return_url: req.return_url,
        channels: 'MOBILE_MONEY',
        lang: 'fr',
        metadata: req.reference,
        customer_id: req.reference,
        ...(req.msisdn ? { customer_phone_number: req.msisdn } : {}),
      });
      const body = res.json as { code?: unknown; data?: { payment_url?: unknown; payment_token?: unknown } };
      if (res.status >= 400 || String(body?.code) !== '201' || typeof body?.data?.payment_url !== 'string') {
        log.warn('cinetpay refused the payment', {
          status: res.status,
          code: String(body?.code ?? ''),
          reference: req.reference,
        });
        throw providerRefused('The payment provider refused the request');
      }
      return {
        payment_url: body.data.payment_url,
        ...(typeof body.data.payment_token === 'string'
          ? { provider_reference: body.data.payment_token }
          : {}),
      };
    },

    async paymentState(ref, opts = {}) {
      const res = await post(
        '/v2/payment/check',
        ref.reference,
        { transaction_id: ref.reference },
        opts.attempts,
      );
      const body = res.json as
        | {
            code?: unknown;
            data?: { status?: unknown; amount?: unknown; currency?: unknown; operator_id?: unknown };
          }
        | undefined;
      const data = body?.data;
      // No transaction under that id: CinetPay answers an error code and no data.
      if (!data || typeof data.status !== 'string') return undefined;
      const status = STATUS[data.status];
      const amount = Number(data.amount);
      if (!status || !Number.isFinite(amount) || typeof data.currency !== 'string') {
        log.warn('cinetpay status not understood', { reference: ref.reference, status: String(data.status) });
        throw providerRefused('Bad provider answer');
      }
      const state: PaymentState = { status, amount_fcfa: amount, currency: data.currency };
      if (typeof data.operator_id === 'string' && data.operator_id)
        state.provider_reference = data.operator_id;
      return state;
    },

    async verifyNotification(headers, rawBody) {
      const token = headers['x-token'] ?? '';
      const form = new URLSearchParams(rawBody);
      const keys = secretKeys(await options.secretKey());
      if (!token || !anySignatureMatches(keys, cinetpaySignedString(form), [token])) throw badSignature();
      // Signed with our key but for another site of the account: none of our payments.
      if (form.get('cpm_site_id') !== options.siteId) return { kind: 'ignored', reason: 'other_site' };
      const id = form.get('cpm_trans_id') ?? '';
      if (!id) return { kind: 'ignored', reason: 'no_transaction' };
      const amount = Number(form.get('cpm_amount'));
      return {
        kind: 'payment',
        notification: {
          // CinetPay numbers no notification: its token, an HMAC of the whole content, is unique
          // to it, so the same notification posted again is seen as the same one.
          id: `x-token:${token.toLowerCase()}`,
          payment_id: id,
          ...(Number.isFinite(amount) && form.get('cpm_amount') ? { amount_fcfa: amount } : {}),
          ...(form.get('cpm_currency') ? { currency: form.get('cpm_currency') as string } : {}),
        },
      };
    },
  };
}

/** CinetPay: its signed form notification, its check API, two secrets. */
export const cinetpay = signedGateway('cinetpay', {
  secrets: { apiKey: 'CINETPAY_API_KEY', secretKey: 'CINETPAY_SECRET_KEY' },
  settings: [cinetpaySettings, { baseUrl: 'CINETPAY_BASE_URL', siteId: 'CINETPAY_SITE_ID' }],
  adapter: cinetpayAdapter,
});
