// Asking a payment's gateway: the one it was opened with, whether it has a status API, and what that API says of the payment.

import { config } from '../../core/config.js';
import type { Payment } from '../../store/payments.js';
import type { GatewayAdapter, PaymentState } from '../gateways/port.js';
import { adapterFor, type Gateway, gatewayNamed } from '../gateways/registry.js';

/**
 * The gateway of a payment: the one it was opened with. Payments older than the `gateway`
 * attribute were opened with AGGREGATOR_MODE's (`sandbox` | `http`).
 */
export const gatewayOf = (p: Pick<Payment, 'gateway'>): Gateway =>
  gatewayNamed(p.gateway) ?? (config().AGGREGATOR_MODE as Gateway);

/** The gateway's view of a payment (undefined: no status API, or it does not know the payment). */
export function askGateway(
  p: Payment,
  options: { attempts?: number; adapter?: GatewayAdapter } = {},
): Promise<PaymentState | undefined> {
  const agg = options.adapter ?? adapterFor(gatewayOf(p));
  if (!agg.paymentState) return Promise.resolve(undefined);
  return agg.paymentState(
    { reference: p.id, ...(p.provider_reference ? { provider_reference: p.provider_reference } : {}) },
    options.attempts ? { attempts: options.attempts } : {},
  );
}

/** Whether the payment's gateway has a status API. */
export const canAskGateway = (p: Payment): boolean => !!adapterFor(gatewayOf(p)).paymentState;
