import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * Structured JSON logs (Powertools Logger: one object a line, with the Lambda request id once
 * the endpoint middleware has added the context) and business metrics as CloudWatch EMF.
 * Never pass a secret, an OTP or a hash here; MSISDNs go through `maskMsisdn` first.
 */
export const logger = new Logger({ serviceName: 'hotspot-api' });

export const metrics = new Metrics({ namespace: 'HotspotPlatform', serviceName: 'hotspot-api' });

type Fields = Record<string, unknown>;

export const log = {
  info: (message: string, fields: Fields = {}) => logger.info(message, fields),
  warn: (message: string, fields: Fields = {}) => logger.warn(message, fields),
  error: (message: string, fields: Fields = {}) => logger.error(message, fields),
};

/** The business events operations watch; each is one EMF count. */
export type BusinessMetric =
  | 'OtpSent'
  | 'OtpVerified'
  | 'OtpRejected'
  | 'PaymentCompleted'
  | 'PaymentFailed'
  | 'WebhookRefused'
  | 'NotificationRefused'
  | 'PaymentExpired'
  | 'PaymentMismatch'
  | 'PaymentStatusChecked'
  | 'ReconciliationRun'
  | 'ReconciliationCompleted'
  | 'VoucherRedeemed'
  | 'VlanAllocated'
  | 'CanaryFailed'
  | 'RadiusAccept'
  | 'RadiusReject'
  | 'RadiusLogin'
  | 'RadiusAccounting'
  | 'SessionsClosedStale';

/** Counts a business event; flushed as EMF at the end of the invocation. */
export function countMetric(name: BusinessMetric, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}

/** `+22507123456` -> `+225*****3456`: enough to tell numbers apart in logs, not to dial them. */
export function maskMsisdn(msisdn: string): string {
  if (msisdn.length <= 8) return '***';
  return `${msisdn.slice(0, 4)}${'*'.repeat(msisdn.length - 8)}${msisdn.slice(-4)}`;
}
