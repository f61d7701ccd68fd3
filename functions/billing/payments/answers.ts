// What each HTTP channel answers for each settlement, written once as a table.

import { AppError, type ErrorCode } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { countMetric } from '../../core/metrics.js';
import type { Settlement } from './settlement.js';

/**
 * What each HTTP channel answers for each settlement, written once. A body is a 200; an error is
 * its stable code (the HTTP status is the code's, core/errors.ts) and, for a 503, the seconds
 * after which the sender should deliver again. Every 4xx counts the channel's refusal metric.
 */
type Answer<B> = B | { code: ErrorCode; message: string; retryAfterS?: number };

const processed = { status: 'processed' } as const;
/** A refusal the sender should not deliver again as is (409). */
const conflict = (message: string) => ({ code: 'ERR_CONFLICT', message }) as const;
/** The gateway could not be asked: deliver again after this many seconds (503). */
const later = (message: string, retryAfterS: number) =>
  ({ code: 'ERR_UNAVAILABLE', message, retryAfterS }) as const;

/** The spec webhook (`POST /api/v1/payments/webhook`): the generic gateway delivers at least once. */
export const WEBHOOK_ANSWERS: Record<Settlement, Answer<typeof processed>> = {
  completed: processed,
  failed: processed,
  refunded: processed,
  unchanged: processed,
  replayed: processed,
  ignored: processed,
  pending: later('The provider does not show the payment completed yet', 60),
  unreachable: later('Could not confirm the payment with the provider, deliver again later', 60),
  unknown: conflict('Webhook refused: not confirmed'),
  not_confirmed: conflict('Webhook refused: not confirmed'),
  amount_mismatch: conflict('Webhook refused: amount mismatch'),
  currency_mismatch: conflict('Webhook refused: currency mismatch'),
  provider_mismatch: conflict('Webhook refused: provider mismatch'),
  gateway_mismatch: conflict('Webhook refused: payment opened with another provider'),
};

type NotifyBody = { status: 'processed' | 'pending' | 'ignored' };

/** A gateway's signed notification (`POST /api/v1/payments/notify/{provider}`). */
export const NOTIFY_ANSWERS: Record<Settlement, Answer<NotifyBody>> = {
  completed: processed,
  failed: processed,
  refunded: processed,
  unchanged: processed,
  pending: { status: 'pending' },
  ignored: { status: 'ignored' },
  replayed: {
    code: 'ERR_NOTIFICATION_REPLAYED',
    message: 'This notification was already applied to the payment',
  },
  amount_mismatch: { code: 'ERR_AMOUNT_MISMATCH', message: 'Amount differs from the payment' },
  currency_mismatch: { code: 'ERR_CURRENCY_MISMATCH', message: 'Currency differs from the payment' },
  provider_mismatch: conflict('The provider confirms another operator'),
  gateway_mismatch: conflict('Payment opened with another provider'),
  unknown: conflict('The provider does not know this payment'),
  not_confirmed: conflict('The provider does not know this payment'),
  unreachable: later('The payment provider is unavailable, try again shortly', 30),
};

/** The body a channel answers for a settlement; throws its error (counted when a refusal). */
export function answer<B extends object>(
  table: Record<Settlement, Answer<B>>,
  s: Settlement,
  refused: 'WebhookRefused' | 'NotificationRefused',
): B {
  const a = table[s];
  if (!('code' in a)) return a as B;
  const error = new AppError(
    a.code,
    a.message,
    a.retryAfterS ? { headers: { 'Retry-After': String(a.retryAfterS) } } : {},
  );
  if (error.status < 500) {
    countMetric(refused);
    log.warn('delivery refused', { settlement: s });
  }
  throw error;
}
