import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { countMetric } from '../core/metrics.js';
import { sweepSilentSessions } from './accounting.js';

/** Every 5 minutes: sessions whose NAS went silent are closed (they block no login meanwhile). */
export const handler = job('session sweep', async () => {
  const closed = await sweepSilentSessions(clock.now());
  if (closed > 0) countMetric('SessionsClosedStale', closed);
  return { closed };
});
