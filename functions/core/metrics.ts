import { atInvocationEnd } from './log.js';

/**
 * Business metrics as CloudWatch EMF (Powertools Metrics), flushed when each invocation ends.
 * Only the functions that count something load this module. Powertools Metrics itself is loaded
 * by the first count (functions/core/metrics-emf.mts, a lazy chunk in the bundles): a count is
 * kept here until then, and the flush writes it through Powertools, synchronously once loaded
 * (which the first count's invocation has almost always done by its end), else once the load
 * completes.
 */
type Emf = typeof import('./metrics-emf.mjs');
/** Powertools' own units (`MetricUnit.Count`, `MetricUnit.Seconds`) are these strings. */
type Unit = 'Count' | 'Seconds';

const pending: { name: string; unit: Unit; value: number }[] = [];
let loading: Promise<Emf> | undefined;
let loaded: Emf | undefined;

const emf = (): Promise<Emf> => {
  loading ??= import('./metrics-emf.mjs').then((m) => {
    loaded = m;
    return m;
  });
  return loading;
};

function record(name: string, unit: Unit, value: number): void {
  pending.push({ name, unit, value });
  // Started now, so that it is done by the invocation's end; a failure shows at the flush.
  emf().catch(() => undefined);
}

function flush({ metrics }: Emf): void {
  for (const m of pending.splice(0)) metrics.addMetric(m.name, m.unit, m.value);
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

atInvocationEnd(() => {
  if (!pending.length) return;
  if (loaded) return flush(loaded);
  return emf().then(flush);
});

/** The business events operations watch; each is one EMF count. */
type BusinessMetric =
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
  /** A PPPoE subscriber's period sold (cash or mobile money: functions/billing/pppoe-renewals.ts). */
  | 'PppoeRenewed'
  | 'ReconciliationRun'
  | 'ReconciliationCompleted'
  | 'VoucherRedeemed'
  | 'VlanAllocated'
  | 'CanaryFailed'
  | 'RadiusAccept'
  | 'RadiusReject'
  | 'RadiusLogin'
  | 'RadiusAccounting'
  /** Requests refused because the router may not speak for the NAS id it sent (functions/radius/caller.ts). */
  | 'RadiusRouterRefused'
  | 'RadiusAccountingIgnored'
  | 'SessionsClosedStale'
  /** Sessions of a restarted NAS its Accounting-On left to the sweep (functions/radius/closing.ts). */
  | 'SessionsClosedNasRestart'
  /** Silent sessions a sweep run had no time for: 0 while the sweep keeps up. */
  | 'SessionSweepBacklog'
  /** Countries of the cell whose link is cut, each sweep run (functions/radius/link-watch.ts). */
  | 'CountriesCut'
  /** New sessions the stream consumer counted (functions/radius/session-counts.ts). */
  | 'SessionsCounted'
  /** Interims the stream consumer counted on their codes (functions/radius/code-usage.ts). */
  | 'InterimsCounted'
  /** A completed payment whose code had no login within 15 minutes (the reseller is told). */
  | 'PaidNotConnected';

/** Counts a business event; flushed as EMF at the end of the invocation. */
export function countMetric(name: BusinessMetric, value = 1): void {
  record(name, 'Count', value);
}

/** Ages operations watch (seconds, the maximum over a period is what an alarm reads). */
type AgeMetric =
  /** The oldest pending payment reconciliation found: it grows when reconciliation falls behind. */
  | 'OldestPendingPaymentAgeS'
  /** The oldest last report among open sessions the sweep found: it grows when the sweep falls behind. */
  | 'OldestOpenSessionReportAgeS';

/** Records an age in seconds; flushed as EMF at the end of the invocation. */
export function ageMetric(name: AgeMetric, seconds: number): void {
  record(name, 'Seconds', Math.max(0, Math.round(seconds)));
}
