// The RouterSilence job, every 5 minutes: Raise an alert and text the reseller once for a router silent for ROUTER_SILENT_AFTER_MIN (30) minutes

import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { flagSilentRouters } from './silence.js';

/** Every 5 minutes: routers heard once and silent since ROUTER_SILENT_AFTER_MIN raise an alert and an SMS. */
export const handler = job('RouterSilence', () => flagSilentRouters(clock.now()));
