import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { atInvocationEnd } from './log.js';

/**
 * Business metrics as CloudWatch EMF (Powertools Metrics), flushed when each invocation ends.
 * Only the functions that count something load this module (Powertools Metrics and its own
 * console stay out of the others' bundles and start-up).
 */
export const metrics = new Metrics({ namespace: 'HotspotPlatform', serviceName: 'hotspot-api' });

atInvocationEnd(() => {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
});

/** The business events operations watch; each is one EMF count. */
export type BusinessMetric =
  | 'OtpSent'
  | 'OtpVerified'
  | 'OtpRejected'
  | 'DeviceRemembered'
  | 'DeviceSession'
  | 'PaymentCompleted'
  | 'PaymentFailed'
  | 'WebhookRefused'
  | 'NotificationRefused'
  | 'PaymentExpired'
  | 'PaymentMismatch'
  /** A completed payment its gateway refunded: its code was taken back. */
  | 'PaymentRefunded'
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
  /** Requests refused because the router may not speak for the NAS id it sent (functions/radius/identity.ts). */
  | 'RadiusRouterRefused'
  | 'RadiusAccountingIgnored'
  | 'SessionsClosedStale'
  /** Sessions of a restarted NAS its Accounting-On left to the sweep (functions/radius/closing.ts). */
  | 'SessionsClosedNasRestart'
  /** Silent sessions a sweep run had no time for: 0 while the sweep keeps up. */
  | 'SessionSweepBacklog'
  /** New sessions the stream consumer counted (functions/radius/session-counts.ts). */
  | 'SessionsCounted'
  /** A completed payment whose code had no login within 15 minutes (the reseller is told). */
  | 'PaidNotConnected';

/** Counts a business event; flushed as EMF at the end of the invocation. */
export function countMetric(name: BusinessMetric, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}

/** Ages operations watch (seconds, the maximum over a period is what an alarm reads). */
export type AgeMetric =
  /** The oldest pending payment reconciliation found: it grows when reconciliation falls behind. */
  | 'OldestPendingPaymentAgeS'
  /** The oldest last report among open sessions the sweep found: it grows when the sweep falls behind. */
  | 'OldestOpenSessionReportAgeS';

/** Records an age in seconds; flushed as EMF at the end of the invocation. */
export function ageMetric(name: AgeMetric, seconds: number): void {
  metrics.addMetric(name, MetricUnit.Seconds, Math.max(0, Math.round(seconds)));
}
