import { config } from '../../core/config.js';
import type { GatewayAdapter, GatewayDeclaration } from './port.js';

/** Local mode: the local server's sandbox pages play the gateway (bin/local/sandbox.ts). */
export function sandboxAdapter(baseUrl: string = config().PUBLIC_BASE_URL): GatewayAdapter {
  return {
    createPayment: async (req) => ({
      payment_url: `${baseUrl.replace(/\/$/, '')}/sandbox/pay/${req.reference}`,
    }),
  };
}

/**
 * The sandbox, the local default: it delivers through the spec webhook (the sandbox page's
 * buttons). No secret, no status API: the sandbox is the local server itself, its delivery is
 * its word.
 */
export const sandbox = {
  name: 'sandbox',
  secrets: [],
  notifies: 'spec-webhook',
  settings: ['PUBLIC_BASE_URL'],
  adapter: () => sandboxAdapter(),
} as const satisfies GatewayDeclaration;
