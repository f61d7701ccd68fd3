import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';

/** Settings of the network area. */
export const networkSettings = defineSettings(
  z.object({
    /** What the DNS status reports as sinkhole before the DNS host first reports. */
    DNS_SINKHOLE_IP: z._default(z.string().check(z.ipv4()), '0.0.0.0'),
    /** The logo a captive portal shows before the reseller sets one. */
    BRANDING_DEFAULT_LOGO_URL: z._default(
      z.string().check(z.url()),
      'https://static.hotspot.africa/logo.png',
    ),
    BRANDING_DEFAULT_PRIMARY: z._default(z.string().check(z.regex(/^#[0-9a-f]{6}$/)), '#0f6cbd'),
    BRANDING_DEFAULT_SECONDARY: z._default(z.string().check(z.regex(/^#[0-9a-f]{6}$/)), '#ffffff'),
  }),
);

/** Sites a reseller may have (its VLAN's AP addresses .2 to .21; one transaction releases all). */
export const MAX_SITES = 20;
