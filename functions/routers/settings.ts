import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';

/** The routers area's own settings: what a router's setup script points it at. */
export const routerSettings = defineSettings(
  z.object({
    /**
     * The RADIUS front's public address, which routers are configured with (one of the stack's
     * `RadiusAddresses`; CDK context `radiusHost`). RouterOS takes an IP address there, not a
     * name. Empty: the API answers a router's credentials without its setup script.
     */
    RADIUS_HOST: z._default(z.string(), ''),
    /** The name the hotspot answers on for its own pages (login, status) in the setup script. */
    HOTSPOT_DNS_NAME: z._default(z.string(), 'login.wifi'),
  }),
);
