import { atInvocationEnd } from './log.js';

/**
 * Business metrics as CloudWatch EMF (the Embedded Metric Format): counts and ages buffered
 * during an invocation and written as one JSON document on stdout when it ends, which CloudWatch
 * Logs turns into metrics of the namespace `HotspotPlatform` with the dimension
 * `service=hotspot-api`. Only the functions that count something load this module. Written here
 * rather than with Powertools Metrics (12 KB of every counting function's bundle): the document
 * is the same, and so is the switch, `POWERTOOLS_METRICS_DISABLED` (else `POWERTOOLS_DEV`),
 * that turns the output off locally and in tests.
 */
const NAMESPACE = 'HotspotPlatform';
const SERVICE = 'hotspot-api';
/** CloudWatch takes at most 100 values of a metric in one document: more are flushed first. */
const MAX_VALUES = 100;

type Unit = 'Count' | 'Seconds';
const stored = new Map<string, { unit: Unit; values: number[] }>();

const truthy = (v: string | undefined) =>
  ['1', 'true', 'yes', 'on', 'y'].includes((v ?? '').trim().toLowerCase());

function disabled(): boolean {
  const setting = process.env.POWERTOOLS_METRICS_DISABLED;
  return setting !== undefined && setting.trim() !== ''
    ? truthy(setting)
    : truthy(process.env.POWERTOOLS_DEV);
}

/** The EMF document of what is buffered: one value as a number, several as an array (CloudWatch sums them). */
function document(nowMs: number): Record<string, unknown> {
  const values: Record<string, number | number[]> = {};
  for (const [name, m] of stored)
    values[name] = m.values.length === 1 ? (m.values[0] as number) : [...m.values];
  return {
    _aws: {
      Timestamp: nowMs,
      CloudWatchMetrics: [
        {
          Namespace: NAMESPACE,
          Dimensions: [['service']],
          Metrics: [...stored].map(([name, m]) => ({ Name: name, Unit: m.unit })),
        },
      ],
    },
    service: SERVICE,
    ...values,
  };
}

/** Writes what is buffered as one EMF line (nothing when nothing is), and empties the buffer. */
function publish(): void {
  if (stored.size === 0) return;
  try {
    if (!disabled()) process.stdout.write(`${JSON.stringify(document(Date.now()))}\n`);
  } finally {
    stored.clear();
  }
}

atInvocationEnd(publish);

function add(name: string, unit: Unit, value: number): void {
  const m = stored.get(name);
  if (m && m.unit !== unit) throw new Error(`Metric ${name} is counted in ${m.unit}, not ${unit}`);
  if (m && m.values.length >= MAX_VALUES) publish();
  const kept = stored.get(name);
  if (kept) kept.values.push(value);
  else stored.set(name, { unit, values: [value] });
}

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
  add(name, 'Count', value);
}

/** Ages operations watch (seconds, the maximum over a period is what an alarm reads). */
export type AgeMetric =
  /** The oldest pending payment reconciliation found: it grows when reconciliation falls behind. */
  | 'OldestPendingPaymentAgeS'
  /** The oldest last report among open sessions the sweep found: it grows when the sweep falls behind. */
  | 'OldestOpenSessionReportAgeS';

/** Records an age in seconds; flushed as EMF at the end of the invocation. */
export function ageMetric(name: AgeMetric, seconds: number): void {
  add(name, 'Seconds', Math.max(0, Math.round(seconds)));
}
