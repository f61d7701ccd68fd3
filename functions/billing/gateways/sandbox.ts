// The local sandbox as a payment gateway: its own page decides the payment, nothing leaves the machine.

import { config } from '../../core/config.js';
import { getSandboxPayment } from '../../store/sandbox-payments.js';
import type { GatewayAdapter, GatewayDeclaration } from './port.js';

/**
 * Local mode: the local server's sandbox pages play the gateway (bin/local/sandbox.ts). Its
 * status API answers what its page decided for a payment (functions/store/sandbox-payments.ts),
 * as a real gateway's answers its own records: a payment its page never decided is unknown.
 */
export function sandboxAdapter(baseUrl: string = config().PUBLIC_BASE_URL): GatewayAdapter {
  return {
    createPayment: async (req) => ({
      payment_url: `${baseUrl.replace(/\/$/, '')}/sandbox/pay/${req.reference}`,
    }),
    async paymentState(ref) {
      const p = await getSandboxPayment(ref.reference);
      return (
        p && { status: p.status, amount_fcfa: p.amount_fcfa, currency: p.currency, provider: p.provider }
      );
    },
  };
}

/**
 * The sandbox, the local default: it delivers through the spec webhook (the sandbox page's
 * buttons), no secret. Its delivery for a pending payment is its page's own decision and is
 * credited as it comes; a completion after `failed` or `expired` is confirmed with its status
 * API, as every gateway's is, so local mode credits a late completion as production does.
 */
export const sandbox = {
  name: 'sandbox',
  secrets: [],
  notifies: 'spec-webhook',
  settings: ['PUBLIC_BASE_URL'],
  confirmsPending: false,
  adapter: () => sandboxAdapter(),
} as const satisfies GatewayDeclaration;
