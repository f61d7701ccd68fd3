import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { ageMetric, countMetric } from '../core/metrics.js';
import { oldestOpenReport } from '../store/sessions.js';
import { sweepSilentSessions } from './closing.js';
import { radiusSettings } from './settings.js';

/**
 * Every 5 minutes: sessions whose NAS went silent are closed (they block no login meanwhile),
 * and the sessions an Accounting-On could not close inside its answer.
 */
export const handler = job('session sweep', async () => {
  const now = clock.now();
  const result = await sweepSilentSessions(now);
  if (result.closed > 0) countMetric('SessionsClosedStale', result.closed);
  if (result.restart_closed > 0) countMetric('SessionsClosedNasRestart', result.restart_closed);
  // The backlog: silent sessions this run had no time for (0 when it finished).
  countMetric('SessionSweepBacklog', result.left);
  // What is left after the sweep: silent past the lease, the sweep falls behind (alarm OldestOpenSession).
  const oldest = await oldestOpenReport(new Date(now - radiusSettings().RADIUS_LEASE_S * 1000).toISOString());
  ageMetric('OldestOpenSessionReportAgeS', oldest ? (now - Date.parse(oldest)) / 1000 : 0);
  return result;
});
