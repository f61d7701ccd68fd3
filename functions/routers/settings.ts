// The routers area's settings: when a router counts as silent, and how often the front refreshes its routers.

import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { intSetting } from '../core/schemas.js';

/** The routers area's own settings: what a router's setup script points it at. */
export const routerSettings = defineSettings(
  z.object({
    /**
     * The RADIUS front's public addresses, comma-separated, which routers are configured with
     * (the stack sets them from its Elastic IPs: its `RadiusAddresses`; CDK context `radiusHost`
     * overrides). RouterOS takes IP addresses there, not names. Empty: the API answers a router's
     * credentials without its setup script.
     */
    RADIUS_HOST: z._default(z.string(), ''),
    /**
     * Where the front's Disconnect/CoA requests leave from, comma-separated (the stack sets them
     * from its NAT gateways' Elastic IPs: its `RadiusEgressAddresses`).
     */
    RADIUS_DISCONNECT_FROM: z._default(z.string(), ''),
    /** The name the hotspot answers on for its own pages (login, status) in the setup script. */
    HOTSPOT_DNS_NAME: z._default(z.string(), 'login.wifi'),
    /**
     * Minutes without a request from a router (a login, an accounting report) after which it is
     * "silencieux": the silence job raises an alert and texts its reseller once. 10 to 1440:
     * above the router's 5-minute accounting interval, so that a router with a subscriber
     * connected is never found silent.
     */
    ROUTER_SILENT_AFTER_MIN: z._default(intSetting, 30),
  }),
  (v) =>
    v.ROUTER_SILENT_AFTER_MIN >= 10 && v.ROUTER_SILENT_AFTER_MIN <= 1440 ? [] : ['ROUTER_SILENT_AFTER_MIN'],
);
