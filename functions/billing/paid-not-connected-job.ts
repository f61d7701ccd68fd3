// The PaidNotConnected job, every 5 minutes: Flag completed payments whose access code had no login within 15 minutes (payé, pas connecté)

import { clock } from '../core/clock.js';
import { job } from '../core/job.js';
import { flagPaidNotConnected } from './paid-not-connected.js';

/** Every 5 minutes: flags completed payments whose code had no login within 15 minutes. */
export const handler = job('PaidNotConnected', () => flagPaidNotConnected(clock.now()));
