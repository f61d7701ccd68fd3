// The SessionSweep job, every 5 minutes: Close RADIUS sessions whose NAS stopped reporting (no interim for two intervals), and those an Accounting-On left

import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { log } from '../core/log.js';
import { ageMetric, countMetric } from '../core/metrics.js';
import { oldestOpenReport } from '../store/sessions.js';
import { sweepSilentSessions } from './closing.js';
import { watchLinks } from './link-watch.js';
import { radiusSettings } from './settings.js';

/**
 * Every 5 minutes: the countries' links are judged from the silent sessions
 * (functions/radius/link-watch.ts); sessions whose NAS went silent are closed (they block no
 * login meanwhile), except a cut country's, which report late; and the sessions an
 * Accounting-On could not close inside its answer.
 */
export const handler = job('session sweep', async () => {
  const now = clock.now();
  // Judging the countries must not stop the sweep: on a failure it closes as it did without it.
  const links = await watchLinks(now).catch((error: Error) => {
    log.warn('sweep: countries not judged', { error: error.name });
    return undefined;
  });
  // One of the platform's alarms per cell: a country of the cell cut (lib/observability.ts).
  countMetric('CountriesCut', links?.down ?? 0);
  const paused = links?.paused.size ? links : undefined;
  const result = await sweepSilentSessions(
    now,
    undefined,
    paused && (async (s) => paused.paused.has(await paused.countryOf(s.reseller_id))),
  );
  if (result.closed > 0) countMetric('SessionsClosedStale', result.closed);
  if (result.restart_closed > 0) countMetric('SessionsClosedNasRestart', result.restart_closed);
  // The backlog: silent sessions this run had no time for (0 when it finished).
  countMetric('SessionSweepBacklog', result.left);
  // What is left after the sweep: silent past the lease, the sweep falls behind (alarm OldestOpenSession).
  const oldest = await oldestOpenReport(new Date(now - radiusSettings().RADIUS_LEASE_S * 1000).toISOString());
  ageMetric('OldestOpenSessionReportAgeS', oldest ? (now - Date.parse(oldest)) / 1000 : 0);
  return { ...result, countries_cut: links?.down ?? 0 };
});
