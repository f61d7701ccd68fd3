// The monitoring overview scoped to the caller, the canary's state, and the public status.

import { clock } from '../core/clock.js';
import type { Principal } from '../core/principal.js';
import { getCanaryState, listDays } from '../store/canary.js';
import { countersOf, scopeOf } from '../store/counters.js';
import { linkStates } from '../store/link-states.js';
import { CHECK_NAMES } from './checks/types.js';
import { monitoringSettings } from './settings.js';
import { linkNotice, type PublicStatus, percentages, publicStatus, windowStart } from './status.js';

export interface Overview {
  sessions_active: number;
  uptime_pct: number;
  alerts_active: number;
  sla_pct: number;
  runs_30d: number;
}

/**
 * `GET /monitoring/overview`, scoped to the caller: an admin sees the platform's open sessions
 * and active alerts, a reseller its own hotspots', a subscriber its own sessions (and no
 * alerts); everyone sees the service levels. Two DynamoDB round trips whatever the activity:
 * the caller's counters (one GetItem, kept by accounting and alerts) and the 30 days of canary
 * results (one Query of at most 30 items).
 */
export async function overview(principal: Principal): Promise<Overview> {
  const now = clock.now();
  const scope =
    principal.role === 'admin'
      ? scopeOf.all()
      : principal.role === 'reseller'
        ? scopeOf.reseller(principal.resellerId)
        : scopeOf.subscriber(principal.sub);
  const [counters, days] = await Promise.all([countersOf(scope), listDays(windowStart(now))]);
  const p = percentages(days);
  return {
    sessions_active: counters.open,
    uptime_pct: p.uptime_pct,
    alerts_active: principal.role === 'admin' || principal.role === 'reseller' ? counters.alerts_active : 0,
    sla_pct: p.sla_pct,
    runs_30d: p.runs,
  };
}

export interface CanaryStatusView {
  last_run: string | null;
  consecutive_fails: number;
  overall_status: 'healthy' | 'degraded' | 'down' | 'unknown';
  tests: { name: string; success: boolean; latency_ms: number; error?: string; throughput_kbps?: number }[];
}

/**
 * `GET /canary/status`: the latest run. Operator details (hosts, messages) stay in the stored
 * run; callers get the check names, results, latencies and reason codes. Before the first run:
 * `overall_status: unknown`, `last_run: null`, no tests.
 */
export async function canaryStatus(): Promise<CanaryStatusView> {
  const state = await getCanaryState();
  if (!state) return { last_run: null, consecutive_fails: 0, overall_status: 'unknown', tests: [] };
  const order = (name: string) => CHECK_NAMES.indexOf(name as (typeof CHECK_NAMES)[number]);
  return {
    last_run: state.last_run,
    consecutive_fails: state.consecutive_fails,
    overall_status: state.overall_status,
    ...(state.site ? { site: state.site } : {}),
    tests: [...state.tests]
      .sort((a, b) => order(a.name) - order(b.name))
      .map((t) => ({
        name: t.name,
        success: t.success,
        latency_ms: t.latency_ms,
        ...(t.error ? { error: t.error } : {}),
        ...(t.throughput_kbps !== undefined ? { throughput_kbps: t.throughput_kbps } : {}),
      })),
  };
}

/** `GET /monitoring/status` (public): the canary's verdict, and a line per country cut. */
export async function currentPublicStatus(): Promise<PublicStatus> {
  const [state, links] = await Promise.all([getCanaryState(), linkStates()]);
  const status = publicStatus(state, clock.now(), monitoringSettings().CANARY_STALE_AFTER_MS);
  const cut = links.filter((l) => l.status === 'cut');
  return cut.length ? { ...status, notices: cut.map(linkNotice) } : status;
}
