// The public status: each component's state from the canary's checks, and the uptime over the window.

import type { Country } from '../core/currency.js';
import type { CanaryState, DayCounters, RunStatus } from '../store/canary.js';
import type { LinkState } from '../store/link-states.js';
import { CHECK_NAMES, type CheckName, type CheckResult } from './checks/types.js';

/** The checks without which no subscriber gets online: the API (OTP, payments) and RADIUS. */
export const CRITICAL_CHECKS: readonly CheckName[] = ['api_health', 'radius_auth'];

/** A check with no target: it proves nothing either way. */
const notConfigured = (t: Pick<CheckResult, 'success' | 'error'>) =>
  !t.success && t.error === 'not_configured';

/**
 * The rules of `overall_status` (docs/monitoring.md):
 * - `healthy`: every configured check passed (a non-critical check with no target configured
 *   counts for nothing; a critical one with no target is a failure: a canary that cannot see
 *   logins must not look healthy);
 * - `down`: a critical check (api_health, radius_auth) failed, or every check failed;
 * - `degraded`: anything else (DNS filtering, the portal page or the data path is failing while
 *   subscribers can still log in).
 */
export function overallStatus(tests: readonly Pick<CheckResult, 'name' | 'success' | 'error'>[]): RunStatus {
  const failed = tests.filter((t) => !t.success && !(notConfigured(t) && !CRITICAL_CHECKS.includes(t.name)));
  if (failed.length === 0) return 'healthy';
  if (failed.length === tests.length || failed.some((t) => CRITICAL_CHECKS.includes(t.name))) return 'down';
  return 'degraded';
}

/** Public names of what the checks prove, for the status page (no hosts, no internals). */
const COMPONENTS: Record<CheckName, string> = {
  api_health: 'api',
  radius_auth: 'wifi_login',
  portal_access: 'captive_portal',
  data_transfer: 'internet_access',
  dns_sinkhole: 'dns_filtering',
};

export interface PublicStatus {
  status: 'operational' | 'degraded' | 'down';
  components: { name: string; status: 'operational' | 'down' | 'unknown' }[];
  updated_at: string;
  notices?: LinkNotice[];
}

/** A line of the status page: a country whose link is cut (functions/radius/link-watch.ts). */
interface LinkNotice {
  country: string;
  kind: 'link_cut';
  since: string;
  message: string;
}

/** Each country's French name and time zone: the line reads in the subscriber's own clock. */
const COUNTRY_LINES: Record<Country, [string, string]> = {
  BJ: ['Bénin', 'Africa/Porto-Novo'],
  BF: ['Burkina Faso', 'Africa/Ouagadougou'],
  CI: ["Côte d'Ivoire", 'Africa/Abidjan'],
  GW: ['Guinée-Bissau', 'Africa/Bissau'],
  ML: ['Mali', 'Africa/Bamako'],
  NE: ['Niger', 'Africa/Niamey'],
  SN: ['Sénégal', 'Africa/Dakar'],
  TG: ['Togo', 'Africa/Lome'],
  CM: ['Cameroun', 'Africa/Douala'],
  CF: ['Centrafrique', 'Africa/Bangui'],
  CG: ['Congo', 'Africa/Brazzaville'],
  GA: ['Gabon', 'Africa/Libreville'],
  GQ: ['Guinée équatoriale', 'Africa/Malabo'],
  TD: ['Tchad', 'Africa/Ndjamena'],
};

/** "Côte d'Ivoire : liaison internationale coupée depuis 14:02, les codes déjà achetés fonctionnent". */
export function linkNotice(cut: Pick<LinkState, 'country' | 'since'>): LinkNotice {
  const [name, timeZone] = COUNTRY_LINES[cut.country];
  const hhmm = new Intl.DateTimeFormat('fr-FR', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(cut.since));
  return {
    country: cut.country,
    kind: 'link_cut',
    since: cut.since,
    message: `${name} : liaison internationale coupée depuis ${hhmm}, les codes déjà achetés fonctionnent`,
  };
}

/**
 * The public status page: the latest canary run, translated. With no run yet, or a latest run
 * older than `staleAfterMs` (the canary has stopped), nothing is known: components are
 * `unknown` and the whole is `degraded`, since monitoring itself is then failing.
 */
export function publicStatus(
  state: CanaryState | undefined,
  nowMs: number,
  staleAfterMs: number,
): PublicStatus {
  const fresh = state !== undefined && nowMs - Date.parse(state.last_run) <= staleAfterMs;
  if (!fresh) {
    return {
      status: 'degraded',
      components: CHECK_NAMES.map((n) => ({ name: COMPONENTS[n], status: 'unknown' as const })),
      updated_at: state?.last_run ?? new Date(nowMs).toISOString(),
    };
  }
  const byName = new Map(state.tests.map((t) => [t.name, t]));
  return {
    status: state.overall_status === 'healthy' ? 'operational' : state.overall_status,
    components: CHECK_NAMES.map((n) => {
      const t = byName.get(n);
      // A check with no target says nothing about its component: unknown, never down.
      const status = !t || notConfigured(t) ? 'unknown' : t.success ? 'operational' : 'down';
      return { name: COMPONENTS[n], status };
    }),
    updated_at: state.last_run,
  };
}

/** Days of history the overview's percentages cover. */
export const WINDOW_DAYS = 30;

/** The first day (YYYY-MM-DD, UTC) of the 30-day window that ends today. */
export function windowStart(nowMs: number, days = WINDOW_DAYS): string {
  return new Date(nowMs - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

/**
 * `uptime_pct`: share of canary runs that were `healthy` (all five checks passed).
 * `sla_pct`: share of runs that were not `down` (subscribers could log in and get online).
 * Both over the runs of the last 30 days (UTC days, today included), two decimals; 0 when no
 * run was recorded: no evidence is not uptime.
 */
export function percentages(days: readonly DayCounters[]): {
  uptime_pct: number;
  sla_pct: number;
  runs: number;
} {
  let runs = 0;
  let healthy = 0;
  let up = 0;
  for (const d of days) {
    runs += d.runs;
    healthy += d.healthy_runs;
    up += d.up_runs;
  }
  return { uptime_pct: pct(healthy, runs), sla_pct: pct(up, runs), runs };
}
