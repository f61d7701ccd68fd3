import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { ageMetric, countMetric } from '../core/metrics.js';
import { oldestOpenReport } from '../store/sessions.js';
import { sweepSilentSessions } from './accounting.js';

/** Every 5 minutes: sessions whose NAS went silent are closed (they block no login meanwhile). */
export const handler = job('session sweep', async () => {
  const now = clock.now();
  const closed = await sweepSilentSessions(now);
  if (closed > 0) countMetric('SessionsClosedStale', closed);
  // What is left after the sweep: past the lease, the sweep falls behind (alarm OldestOpenSession).
  const oldest = await oldestOpenReport();
  ageMetric('OldestOpenSessionReportAgeS', oldest ? (now - Date.parse(oldest)) / 1000 : 0);
  return { closed };
});
