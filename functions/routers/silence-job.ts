import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { flagSilentRouters } from './silence.js';

/** Every 5 minutes: routers heard once and silent since ROUTER_SILENT_AFTER_MIN raise an alert and an SMS. */
export const handler = job('RouterSilence', () => flagSilentRouters(clock.now()));
