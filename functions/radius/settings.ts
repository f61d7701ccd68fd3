// The RADIUS settings: interim interval, lease, close budgets, router hold, disconnects, MAC logins.

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
    /**
     * Ms an Accounting-On/Off spends closing its NAS's sessions inside the RADIUS answer
     * (FreeRADIUS waits 2 s for the API): what is not closed by then is left to the sweep
     * (functions/radius/closing.ts). About 200 sessions on a NAS close well inside it.
     */
    RADIUS_NAS_CLOSE_BUDGET_MS: z._default(intSetting, 1000),
    /** Sessions closed side by side (Accounting-On/Off and the sweep). */
    RADIUS_CLOSE_CONCURRENCY: z._default(intSetting, 16),
    /**
     * No new close is started past this many ms of a sweep run: its function has 120 s
     * (functions/jobs.ts), and the backlog count and metrics still fit after it.
     */
    RADIUS_SWEEP_BUDGET_MS: z._default(intSetting, 100_000),
    /**
     * A country's link is cut (functions/radius/link-watch.ts) when at least this many of its
     * NAS ids fell silent with sessions open, and they are at least RADIUS_LINK_CUT_PCT percent
     * of its NAS ids with sessions (the silent ones and those heard within a lease).
     */
    RADIUS_LINK_CUT_MIN_NAS: z._default(intSetting, 3),
    RADIUS_LINK_CUT_PCT: z._default(intSetting, 50),
    /**
     * Seconds after a cut ends during which the sweep still leaves its country's silent sessions
     * open: the in-country edge replays its journal, and routers resend, within it.
     */
    RADIUS_LINK_GRACE_S: z._default(intSetting, 1800),
    /**
     * Seconds a process keeps a router and the NAS id it claims as read, to judge its next
     * requests from memory (functions/radius/caller.ts), and an in-country edge's token found
     * valid, for its RADIUS calls (functions/edge/edge-auth.ts). A revoked router or edge, or a
     * released NAS id, is refused within this many seconds (the front's routers within its
     * directory's refresh); 0: every request reads them. A held caller's Interim-Update is one
     * DynamoDB call.
     */
    RADIUS_ROUTER_HOLD_S: z._default(intSetting, 5),
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
     * Session-Timeout of a MAC login (a remembered device let in by its MAC): an hour, or less
     * when the code has less left. The router then authorizes the device again, so a binding
     * forgotten or a code typed elsewhere meanwhile takes effect within this time at most.
     */
    RADIUS_MAC_SESSION_S: z._default(intSetting, 3600),
    /**
     * The password a router sends with a MAC login (RouterOS hotspot profile `mac-auth-password`,
     * which `npm run admin -- mikrotik script` sets to this): FreeRADIUS checks PAP against it.
     * Not a secret: what authenticates a MAC login is the router's own RADIUS credentials and
     * the device's binding; RouterOS sends an empty password without it, which PAP cannot check.
     */
    RADIUS_MAC_AUTH_PASSWORD: z._default(z.string().check(z.regex(/^[A-Za-z0-9._-]{1,64}$/)), 'hotspot-mac'),
  }),
  (v) => [
    // Past 1.5 s the last close would end after FreeRADIUS gave up on the answer.
    ...(v.RADIUS_NAS_CLOSE_BUDGET_MS <= 1500 ? [] : ['RADIUS_NAS_CLOSE_BUDGET_MS']),
    ...(v.RADIUS_CLOSE_CONCURRENCY >= 1 && v.RADIUS_CLOSE_CONCURRENCY <= 64
      ? []
      : ['RADIUS_CLOSE_CONCURRENCY']),
  ],
);
