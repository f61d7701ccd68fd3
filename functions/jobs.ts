// THE jobs table: every scheduled job (handler, schedule, grants), which the stack and the local server both loop over.

import type { RouteAccess } from './routes.js';

/**
 * Scheduled jobs, beside the route table and like it the one place they are declared: the
 * CDK stack gives each an EventBridge schedule and exactly the grants its access names, the
 * local server runs each on a timer. (The canary has a construct of its own, lib/canary.ts.)
 */
interface Job {
  /** Construct id in the stack, and the name the local runner prints. */
  name: string;
  /** Module under `functions/` (no extension) that exports `handler`. */
  handler: string;
  everyMinutes: number;
  /**
   * The function's timeout (default FUNCTION_TIMEOUT_S, 10 s): a job whose backlog at the peak
   * of docs/scale.md needs longer says so, and its handler keeps a margin inside it.
   */
  timeoutS?: number;
  access: RouteAccess;
  summary: string;
}

export const jobs: readonly Job[] = [
  {
    name: 'SessionSweep',
    handler: 'radius/sweep',
    everyMinutes: 5,
    // A 20,000-session outage, 16 closes in flight: 120 s (100 s of budget, RADIUS_SWEEP_BUDGET_MS)
    // close it in one run (docs/scale.md, "Backlogs"); what a run leaves, the next goes on with.
    timeoutS: 120,
    access: { table: 'write' },
    summary:
      'Close RADIUS sessions whose NAS stopped reporting (no interim for two intervals), and those an Accounting-On left',
  },
  {
    name: 'PaymentReconciliation',
    handler: 'billing/reconcile',
    everyMinutes: 5,
    // About 260 abandoned payments every 5 minutes at peak, a gateway answering in about 0.5 s,
    // 16 at a time: 120 s (100 s of budget) re-check about 3,000 a run.
    timeoutS: 120,
    // Completing a payment texts its access code; the gateways' keys ask their status APIs.
    access: { table: 'write', sns: 'sms', payments: true },
    summary:
      'Re-check pending payments with their provider: credit the paid, expire the abandoned, alert on a mismatch',
  },
  {
    name: 'PaidNotConnected',
    handler: 'billing/paid-not-connected-job',
    everyMinutes: 5,
    access: { table: 'write' },
    summary: 'Flag completed payments whose access code had no login within 15 minutes (payé, pas connecté)',
  },
  {
    name: 'RouterSilence',
    handler: 'routers/silence-job',
    everyMinutes: 5,
    // Texts the reseller of a router that fell silent.
    access: { table: 'write', sns: 'sms' },
    summary:
      'Raise an alert and text the reseller once for a router silent for ROUTER_SILENT_AFTER_MIN (30) minutes',
  },
];
