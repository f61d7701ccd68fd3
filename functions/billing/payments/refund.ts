// An operator refunds a completed payment through its gateway, and its code is taken back.

import { AppError, notFound } from '../../core/errors.js';
import { getPayment } from '../../store/payments.js';
import { adapterFor } from '../gateways/registry.js';
import { askGateway, gatewayOf } from './gateway-view.js';
import { type Settlement, settle } from './settlement.js';

/**
 * An operator refunds a completed payment in full (`npm run admin -- payments refund`): the
 * gateway is asked to give the money back, then its status API is read and settled like any
 * notification, so the code is taken back (and its live sessions cut) only once the gateway
 * shows the payment refunded. Its later refund notification then changes nothing.
 */
export async function refundByOperator(paymentId: string): Promise<Settlement> {
  const p = await getPayment(paymentId);
  if (!p) throw notFound('Payment');
  if (p.status !== 'completed') throw new AppError('ERR_CONFLICT', `Payment is ${p.status}, not completed`);
  const adapter = adapterFor(gatewayOf(p));
  if (!adapter.refund) {
    throw new AppError('ERR_CONFLICT', `Refunds of ${gatewayOf(p)} payments are made in its dashboard`);
  }
  await adapter.refund({
    reference: p.id,
    ...(p.provider_reference ? { provider_reference: p.provider_reference } : {}),
  });
  return settle(p, await askGateway(p, { adapter }), { source: 'refund' });
}
