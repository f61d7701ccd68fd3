// The network area's settings: VLAN pool and sites per reseller.

import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { intSetting as int } from '../core/schemas.js';

/** Settings of the network area. */
export const networkSettings = defineSettings(
  z.object({
    /** What the DNS status reports as sinkhole before the DNS host first reports. */
    DNS_SINKHOLE_IP: z._default(z.string().check(z.ipv4()), '0.0.0.0'),
    /**
     * The logo a captive portal shows before the reseller sets one: by default the portal's own
     * (served with its script, portal/logo.svg), so a new hotspot's page asks no other host.
     */
    BRANDING_DEFAULT_LOGO_URL: z._default(
      z.string().check(z.refine((v) => /^\/[A-Za-z0-9/._-]+$/.test(v) || URL.canParse(v))),
      '/portal/assets/logo.svg',
    ),
    BRANDING_DEFAULT_PRIMARY: z._default(z.string().check(z.regex(/^#[0-9a-f]{6}$/)), '#0f6cbd'),
    BRANDING_DEFAULT_SECONDARY: z._default(z.string().check(z.regex(/^#[0-9a-f]{6}$/)), '#ffffff'),
    BRANDING_DEFAULT_ROTATION_SECONDS: z._default(int, 10),
    /**
     * Allocations one process runs at once. A Lambda container serves one request at a time,
     * so this only matters where one process serves many (the local server): queueing there
     * beats hundreds of transactions racing for the counter. Across processes the counter's
     * condition keeps ids unique whatever this is.
     */
    VLAN_ALLOCATION_LANES: z._default(int, 1),
  }),
  (v) => [
    ...(Number.isInteger(v.VLAN_ALLOCATION_LANES) && v.VLAN_ALLOCATION_LANES >= 1
      ? []
      : ['VLAN_ALLOCATION_LANES']),
    ...(v.BRANDING_DEFAULT_ROTATION_SECONDS >= 3 && v.BRANDING_DEFAULT_ROTATION_SECONDS <= 600
      ? []
      : ['BRANDING_DEFAULT_ROTATION_SECONDS']),
  ],
);

/**
 * Sites a reseller may have: site n's access point is host n + 1 of the VLAN's /24, so 253
 * fit (.2 to .254).
 */
export const MAX_SITES = 253;
