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

/** The spec webhook (`POST /api/v1/payments/webhook`): the generic gateway delivers at least once. */
export const WEBHOOK_ANSWERS: Record<Settlement, Answer<typeof processed>> = {
  completed: processed,
  failed: processed,
  refunded: processed,
  unchanged: processed,
  replayed: processed,
  ignored: processed,
  pending: {
    code: 'ERR_UNAVAILABLE',
    message: 'The provider does not show the payment completed yet',
    retryAfterS: 60,
  },
  unreachable: {
    code: 'ERR_UNAVAILABLE',
    message: 'Could not confirm the payment with the provider, deliver again later',
    retryAfterS: 60,
  },
  unknown: { code: 'ERR_CONFLICT', message: 'Webhook refused: not confirmed' },
  not_confirmed: { code: 'ERR_CONFLICT', message: 'Webhook refused: not confirmed' },
  amount_mismatch: { code: 'ERR_CONFLICT', message: 'Webhook refused: amount mismatch' },
  currency_mismatch: { code: 'ERR_CONFLICT', message: 'Webhook refused: currency mismatch' },
  provider_mismatch: { code: 'ERR_CONFLICT', message: 'Webhook refused: provider mismatch' },
  gateway_mismatch: {
    code: 'ERR_CONFLICT',
    message: 'Webhook refused: payment opened with another provider',
  },
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
  provider_mismatch: { code: 'ERR_CONFLICT', message: 'The provider confirms another operator' },
  gateway_mismatch: { code: 'ERR_CONFLICT', message: 'Payment opened with another provider' },
  unknown: { code: 'ERR_CONFLICT', message: 'The provider does not know this payment' },
  not_confirmed: { code: 'ERR_CONFLICT', message: 'The provider does not know this payment' },
  unreachable: {
    code: 'ERR_UNAVAILABLE',
    message: 'The payment provider is unavailable, try again shortly',
    retryAfterS: 30,
  },
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
