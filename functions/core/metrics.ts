// Business metrics as CloudWatch EMF, kept until Powertools is loaded and flushed when each invocation ends (a server's summed and flushed on a timer).

import type { Metrics } from '@aws-lambda-powertools/metrics';
import { atInvocationEnd } from './log.js';

/**
 * Business metrics as CloudWatch EMF (Powertools Metrics), flushed when each invocation ends.
 * Only the functions that count something load this module. Powertools Metrics itself is loaded
 * by the first count (functions/core/metrics-emf.mts, a lazy chunk in the bundles): a count is
 * kept here until then, and the flush writes it through Powertools, synchronously once loaded
 * (which the first count's invocation has almost always done by its end), else once the load
 * completes.
 *
 * A long-running server (the RADIUS front's service, lib/radius-front.ts) sets METRICS_FLUSH_S:
 * its counts are then summed in memory (ages: the largest kept) and written every that many
 * seconds, one EMF document for all of them. One document per request would be one log line per
 * RADIUS packet, about 900 M lines (some 270 GB of logs) a month at the national model
 * (docs/scale.md), for the same sums.
 */
/** Powertools' own units (`MetricUnit.Count`, `MetricUnit.Seconds`) are these strings. */
type Unit = 'Count' | 'Seconds';

const pending: { name: string; unit: Unit; value: number }[] = [];
let loading: Promise<Metrics> | undefined;
let loaded: Metrics | undefined;

const emf = (): Promise<Metrics> => {
  loading ??= import('./metrics-emf.mjs').then(({ metrics }) => {
    loaded = metrics;
    return metrics;
  });
  return loading;
};

/** Seconds between two flushes of a long-running server; 0: a flush at each invocation's end. */
const FLUSH_S = Number(process.env.METRICS_FLUSH_S) > 0 ? Number(process.env.METRICS_FLUSH_S) : 0;

function record(name: string, unit: Unit, value: number): void {
  if (FLUSH_S) summed(name, unit, value);
  else pending.push({ name, unit, value });
  // Started now, so that it is done by the invocation's end; a failure shows at the flush.
  emf().catch(() => undefined);
}

/** A server's counts since its last flush, by name: counts added, ages the largest. */
const sums = new Map<string, { unit: Unit; value: number }>();
let timer: ReturnType<typeof setInterval> | undefined;

function summed(name: string, unit: Unit, value: number): void {
  const known = sums.get(name);
  if (!known) sums.set(name, { unit, value });
  else known.value = unit === 'Seconds' ? Math.max(known.value, value) : known.value + value;
  if (!timer) {
    timer = setInterval(() => void flushSums(), FLUSH_S * 1000);
    // A pending flush keeps no process alive; what is counted after the last one is lost with it.
    timer.unref();
  }
}

/** Writes a server's sums as one EMF document (its `METRICS_FLUSH_S` flush). */
async function flushSums(): Promise<void> {
  if (!sums.size) return;
  const metrics = loaded ?? (await emf());
  for (const [name, m] of sums) metrics.addMetric(name, m.unit, m.value);
  sums.clear();
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

function flush(metrics: Metrics): void {
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
  | 'PaidNotConnected'
  /**
   * The RADIUS front's answers as FreeRADIUS got them (functions/front/service.ts): login calls
   * (authorize, post-auth), accounting calls, and the refusals by reason. A front that refuses
   * everyone pages (lib/observability.ts, FrontRefusingLogins and FrontErrors).
   */
  | 'FrontLoginCalls'
  | 'FrontRefusedUnknownCode'
  | 'FrontRefusedRouter'
  | 'FrontRefusedOther'
  | 'FrontLoginErrors'
  | 'FrontAccountingCalls'
  | 'FrontAccountingErrors';

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
