import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { intSetting } from '../core/schemas.js';

/** The RADIUS edge's settings. */
export const radiusSettings = defineSettings(
  z.object({
    /** Seconds between the NAS's interim updates (Acct-Interim-Interval of every accept). */
    RADIUS_INTERIM_S: z._default(intSetting, 300),
    /**
     * Seconds a device's lease on its code lasts after a login or an interim update: two
     * intervals and a minute. Past it, the session is silent: it blocks no login and the sweep
     * closes it.
     */
    RADIUS_LEASE_S: z._default(intSetting, 660),
  }),
);
