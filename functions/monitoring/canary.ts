// The canary: the five checks run against the live platform, their outcome stored and alerts raised or resolved.

import { randomUUID } from 'node:crypto';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { endInvocation, log, logger } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { getSecret } from '../core/secrets.js';
import { type Alert, closeIncident, raiseAlertOnce } from '../store/alerts.js';
import { type CanaryRun, countRunInDay, putRun, recordLatest } from '../store/canary.js';
import { setUnboundHealthy } from '../store/dns-status.js';
import { checkDnsSinkhole, type DnsTarget } from './checks/dns.js';
import {
  type ApiTarget,
  checkApiHealth,
  checkDataTransfer,
  checkPortal,
  type DataTarget,
  type PortalTarget,
} from './checks/http.js';
import { checkRadiusAuth, type RadiusSecrets, type RadiusTarget } from './checks/radius.js';
import type { CheckResult } from './checks/types.js';
import { notifyOps } from './ops.js';
import { monitoringSettings } from './settings.js';
import { overallStatus } from './status.js';

export const ALERT_TYPE = 'SLA_DEGRADED';
export const ALERT_SEVERITY = 'P1';

interface CanaryTargets {
  dns: DnsTarget;
  api: ApiTarget;
  radius: RadiusTarget;
  portal: PortalTarget;
  data: DataTarget;
}

/** Everything a run depends on; each defaults to the configured, real one. */
interface CanaryDeps {
  targets: CanaryTargets;
  radiusSecrets: () => Promise<RadiusSecrets>;
  /** The nas_id the canary stands for: its alerts' `site`. */
  site: string;
  /** Failed runs in a row that raise the alert. */
  alertAfter: number;
  notify: (alert: Alert, context: Record<string, unknown>) => Promise<void>;
  reportDns: (healthy: boolean, at: string) => Promise<void>;
}

export interface CanaryOutcome {
  run: CanaryRun;
  /** The failure streak after this run (undefined: a newer run was recorded first). */
  consecutive_fails: number | undefined;
  /** The alert this run raised, if it raised one. */
  alert?: Alert;
}

/** The targets of the settings (CDK `targets`, or the local server's defaults). */
export function configuredTargets(): CanaryTargets {
  const s = monitoringSettings();
  return {
    dns: {
      server: s.CANARY_DNS_SERVER,
      name: s.CANARY_DNS_TEST_NAME,
      sinkholeIp: s.CANARY_SINKHOLE_IP,
      timeoutMs: s.CANARY_DNS_TIMEOUT_MS,
    },
    api: {
      url: s.CANARY_API_URL || `${config().PUBLIC_BASE_URL.replace(/\/$/, '')}/api/v1/monitoring/status`,
      timeoutMs: s.CANARY_API_TIMEOUT_MS,
    },
    radius: {
      host: s.CANARY_RADIUS_HOST,
      port: s.CANARY_RADIUS_PORT,
      ...(s.CANARY_RADIUS_SOURCE ? { source: s.CANARY_RADIUS_SOURCE } : {}),
      user: s.CANARY_RADIUS_USER,
      nasId: s.CANARY_SITE_NAS_ID,
      timeoutMs: s.CANARY_RADIUS_TIMEOUT_MS,
    },
    portal: {
      url: s.CANARY_PORTAL_URL,
      marker: s.CANARY_PORTAL_MARKER,
      timeoutMs: s.CANARY_PORTAL_TIMEOUT_MS,
    },
    data: { url: s.CANARY_DATA_URL, bytes: s.CANARY_DATA_BYTES, timeoutMs: s.CANARY_DATA_TIMEOUT_MS },
  };
}

const configuredSecrets = async (): Promise<RadiusSecrets> => ({
  sharedSecret: await getSecret('RADIUS_SECRET'),
  password: await getSecret('CANARY_PASSWORD'),
});

function defaults(): CanaryDeps {
  const s = monitoringSettings();
  return {
    targets: configuredTargets(),
    radiusSecrets: configuredSecrets,
    site: s.CANARY_SITE_NAS_ID,
    alertAfter: s.CANARY_ALERT_AFTER,
    notify: notifyOps,
    reportDns: setUnboundHealthy,
  };
}

/** The five checks, in parallel, each under its own deadline. Never throws. */
export function probe(targets: CanaryTargets, secrets: () => Promise<RadiusSecrets>): Promise<CheckResult[]> {
  return Promise.all([
    checkDnsSinkhole(targets.dns),
    checkApiHealth(targets.api),
    checkRadiusAuth(targets.radius, secrets),
    checkPortal(targets.portal),
    checkDataTransfer(targets.data),
  ]);
}

/**
 * One canary run: probe, store the run (history, day counters, latest state and failure
 * streak), report the resolver's health, and raise one SLA_DEGRADED alert when the streak
 * reaches `alertAfter` (once per incident: a healthy run ends the incident). The scheduled
 * handler, `npm run admin -- canary run` and the local timer all call this.
 */
export async function runCanary(overrides: Partial<CanaryDeps> = {}): Promise<CanaryOutcome> {
  const deps = { ...defaults(), ...overrides };
  const at = clock.iso();
  const tests = await probe(deps.targets, deps.radiusSecrets);
  const run: CanaryRun = {
    id: randomUUID(),
    at,
    overall_status: overallStatus(tests),
    tests,
    site: deps.site,
  };
  const failed = run.overall_status !== 'healthy';

  await Promise.all([putRun(run), countRunInDay(run)]);
  const state = await recordLatest(run, failed);
  const outcome: CanaryOutcome = { run, consecutive_fails: state?.consecutive_fails };
  const failing = tests.filter((t) => !t.success).map((t) => t.name);
  log.info('canary run', {
    overall_status: run.overall_status,
    consecutive_fails: state?.consecutive_fails,
    failing,
    tests: tests.map((t) => ({ name: t.name, success: t.success, latency_ms: t.latency_ms, error: t.error })),
  });
  if (failed) countMetric('CanaryFailed');
  if (!state) return outcome; // a newer run is the latest: it decides.

  const dns = tests.find((t) => t.name === 'dns_sinkhole');
  try {
    await deps.reportDns(dns?.success === true, at);
  } catch (error) {
    log.error('canary could not update the DNS status', { error: (error as Error).message });
  }

  if (!failed) {
    await closeIncident(deps.site, ALERT_TYPE);
    return outcome;
  }
  if (state.consecutive_fails < deps.alertAfter) return outcome;
  const alert = await raiseAlertOnce({
    type: ALERT_TYPE,
    severity: ALERT_SEVERITY,
    site: deps.site,
    ts: clock.iso(),
    message: `${state.consecutive_fails} canary runs in a row failed (${run.overall_status}): ${failing.join(', ')}`,
  });
  if (!alert) return outcome;
  outcome.alert = alert;
  log.warn('alert raised', { id: alert.id, type: alert.type, site: alert.site });
  try {
    await deps.notify(alert, {
      consecutive_fails: state.consecutive_fails,
      overall_status: run.overall_status,
      failing_checks: failing,
      run_id: run.id,
    });
  } catch (error) {
    // The alert is stored and listed; only the push failed. The SDK has retried already.
    log.error('could not notify operations', { id: alert.id, error: (error as Error).message });
  }
  return outcome;
}

/** EventBridge target: one run every 5 minutes (lib/canary.ts). */
export const handler = middy<
  ScheduledEvent,
  { overall_status: string; consecutive_fails: number | undefined }
>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async () => {
    try {
      const { run, consecutive_fails } = await runCanary();
      return { overall_status: run.overall_status, consecutive_fails };
    } finally {
      await endInvocation();
    }
  });
