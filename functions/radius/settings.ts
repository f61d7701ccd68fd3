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
    /** Sends of one Disconnect-Request before it is shown failed (a NAK or no answer each). */
    RADIUS_DISCONNECT_TRIES: z._default(intSetting, 3),
    /** Seconds before the second send; doubled before each next one. */
    RADIUS_DISCONNECT_BACKOFF_S: z._default(intSetting, 2),
    /**
     * Seconds a send waits for the relay's result before it counts as unanswered (the relay
     * died, or its report was lost): longer than the relay's own wait for the router.
     */
    RADIUS_DISCONNECT_WAIT_S: z._default(intSetting, 15),
    /**
     * The password a router sends with a MAC login (RouterOS hotspot profile `mac-auth-password`,
     * which `npm run admin -- mikrotik script` sets to this): FreeRADIUS checks PAP against it.
     * Not a secret: what authenticates a MAC login is the router's own RADIUS credentials and
     * the device's binding; RouterOS sends an empty password without it, which PAP cannot check.
     */
    RADIUS_MAC_AUTH_PASSWORD: z._default(z.string().check(z.regex(/^[A-Za-z0-9._-]{1,64}$/)), 'hotspot-mac'),
  }),
);
