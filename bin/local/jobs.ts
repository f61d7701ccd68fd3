// The jobs table run locally on timers, as EventBridge schedules them in AWS.

import { resolve } from 'node:path';
import { resetConfig } from '../../functions/core/config.js';
import { jobs } from '../../functions/jobs.js';
import { type CanaryOutcome, runCanary } from '../../functions/monitoring/canary.js';
import { PORTAL_MARKER } from '../../functions/portal/page.js';
import { CANARY_CODE } from './demo.js';
import { LOCAL_DIR } from './env.js';

const DEFAULT_INTERVAL_MS = 5 * 60_000;
const FIRST_RUN_DELAY_MS = 1000;

/** One console line per run: what an operator tailing `npm start` needs to see. */
export function describeRun({ run, consecutive_fails, alert }: CanaryOutcome): string {
  const checks = run.tests.map((t) => `${t.name} ${t.success ? 'ok' : `FAIL(${t.error})`} ${t.latency_ms}ms`);
  return `[canary] ${run.overall_status} (fails in a row: ${consecutive_fails ?? '-'}) ${checks.join(', ')}${
    alert ? ` -> alert ${alert.type} ${alert.severity} ${alert.site}` : ''
  }\n`;
}

/**
 * What EventBridge schedules in AWS, run on timers by the local host: the canary, first about
 * a second after start, then every LOCAL_CANARY_INTERVAL_MS (default 5 minutes); LOCAL_CANARY=0
 * turns it off. Its API check targets this server and, when `radius` is given, its RADIUS check
 * the FreeRADIUS `npm start` runs in front of it (account CANARY_RADIUS_USER / CANARY_PASSWORD:
 * the demo seed's canary code, shared secret RADIUS_SECRET); the other checks fail until CANARY_*
 * point at a resolver, a portal and a file (docs/monitoring.md). Alerts go to
 * `.local/ops-outbox.jsonl`. Returns a function that stops the timer and waits for a run in
 * progress.
 */
export function startLocalJobs(options: {
  baseUrl: string;
  radius?: { host: string; port: number; source: string };
}): () => Promise<void> {
  const stopScheduled = startScheduledJobs();
  const stopCanary = startCanary(options);
  return async () => {
    await Promise.all([stopScheduled(), stopCanary()]);
  };
}

/**
 * Every job of functions/jobs.ts on its own timer, as EventBridge runs them in AWS
 * (LOCAL_JOBS=0 turns them off; LOCAL_JOBS_SPEEDUP=N runs them N times as often).
 */
function startScheduledJobs(): () => Promise<void> {
  if (process.env.LOCAL_JOBS === '0') return async () => undefined;
  const speedup = Math.max(1, Number(process.env.LOCAL_JOBS_SPEEDUP ?? 1) || 1);
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  for (const j of jobs) {
    let busy = false;
    const tick = async () => {
      if (busy) return;
      busy = true;
      const mod = (await import(`../../functions/${j.handler}.ts`)) as { handler: () => Promise<unknown> };
      const run = mod
        .handler()
        .then((result) => {
          if (process.env.LOCAL_CANARY_QUIET !== '1')
            process.stdout.write(`[${j.name}] ${JSON.stringify(result)}\n`);
        })
        .catch((error: unknown) => process.stderr.write(`[${j.name}] failed: ${(error as Error).message}\n`))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    const timer = setInterval(() => void tick(), (j.everyMinutes * 60_000) / speedup);
    timer.unref();
    timers.push(timer);
  }
  return async () => {
    for (const t of timers) clearInterval(t);
    await Promise.all(running);
  };
}

function startCanary(options: {
  baseUrl: string;
  radius?: { host: string; port: number; source: string };
}): () => Promise<void> {
  if (process.env.LOCAL_CANARY === '0') return async () => undefined;
  const interval = Number(process.env.LOCAL_CANARY_INTERVAL_MS ?? DEFAULT_INTERVAL_MS);
  if (!Number.isInteger(interval) || interval < 1000) {
    throw new Error('LOCAL_CANARY_INTERVAL_MS must be a whole number of milliseconds, at least 1000');
  }
  process.env.CANARY_API_URL ??= `${options.baseUrl}/api/v1/monitoring/status`;
  if (options.radius) {
    process.env.CANARY_RADIUS_HOST ??= options.radius.host;
    process.env.CANARY_RADIUS_PORT ??= String(options.radius.port);
    // The canary's own router (bin/local/demo.ts) is registered at this loopback address.
    process.env.CANARY_RADIUS_SOURCE ??= options.radius.source;
    // The demo seed's canary code (bin/local/demo.ts): the API accepts it at access_canary.
    process.env.CANARY_RADIUS_USER ??= CANARY_CODE;
    process.env.CANARY_PASSWORD ??= process.env.CANARY_RADIUS_USER;
  }
  // Its portal check loads the canary hotspot's captive portal from this server.
  process.env.CANARY_PORTAL_URL ??= `${options.baseUrl}/portal/${process.env.CANARY_SITE_NAS_ID ?? 'access_canary'}`;
  process.env.CANARY_PORTAL_MARKER ??= PORTAL_MARKER;
  process.env.OPS_OUTBOX ??= resolve(LOCAL_DIR, 'ops-outbox.jsonl');
  // The status page must not call a canary stale between two local runs.
  process.env.CANARY_STALE_AFTER_MS ??= String(Math.max(3 * interval, 15 * 60_000));
  resetConfig();

  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return; // the previous run is still going: skip, as a slow schedule would.
    running = runCanary()
      .then((outcome) => {
        if (process.env.LOCAL_CANARY_QUIET !== '1') process.stdout.write(describeRun(outcome));
      })
      .catch((error: unknown) => {
        process.stderr.write(`[canary] run failed: ${(error as Error).message}\n`);
      })
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, FIRST_RUN_DELAY_MS);
  const timer = setInterval(tick, interval);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
