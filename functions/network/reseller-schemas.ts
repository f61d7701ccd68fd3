// The onboarding's request and answer schemas.

import * as z from 'zod/mini';
import { COUNTRIES } from '../core/currency.js';
import { plainText, schema } from '../core/schemas.js';
import { RouterCredentials } from '../routers/schemas.js';
import { ROUTER_TRANSPORTS } from '../store/routers.js';
import { slugify } from './naming.js';
import { MAX_SITES } from './settings.js';

/*
 * The schemas of a reseller and its sites, apart from the rest of the network's: onboarding
 * builds only these at start, not the branding, DNS and rules schemas it never reads
 * (functions/network/schemas.ts imports what it shares from here).
 */

/**
 * A reseller name: plain text, and a NAS id must be buildable from it (`access_<slug>`), which
 * takes at least one letter a-z (accents are folded: `É` is `e`) or digit. `Ⱦ£` has letters, but
 * none that folds to a-z: the message says so rather than "no letters".
 */
export const resellerName = /* @__PURE__ */ schema(() =>
  plainText(64).check(
    z.refine((v: string) => slugify(v) !== '', {
      message:
        'must contain at least one letter a-z (accents allowed: é is e) or digit 0-9, to build the NAS id from',
    }),
    z.meta({
      description:
        'Plain text (no control or bidirectional control characters), 1 to 64 characters, with at least one letter that folds to a-z or a digit: the NAS id is `access_` and that slug',
    }),
  ),
);

/**
 * A coordinate in degrees, kept to 7 decimal places (about 1 cm): a value that DynamoDB cannot
 * store (`5e-324`, `1e-200`: below its 1e-130) becomes 0 instead of reaching the table.
 */
export const coordinate = (limit: number) =>
  z.pipe(
    z
      .number()
      .check(
        z.gte(-limit),
        z.lte(limit),
        z.meta({ description: `Degrees, -${limit}..${limit}; rounded to 7 decimal places` }),
      ),
    z.transform((v: number) => Math.round(v * 1e7) / 1e7 || 0),
  );

export const SiteResponse = /* @__PURE__ */ schema(() =>
  z.object({
    site_id: z.string(),
    reseller_id: z.string(),
    nas_id: z.string(),
    ssid: z.string(),
    ap_ip: z.string(),
    site_number: z.int(),
    city: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    created_at: z.string(),
  }),
);

/** Onboarding a reseller in one call: its account, its VLAN and NAS id, and its first site. */
export const OnboardBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    msisdn: z.string().check(z.maxLength(32)),
    name: resellerName,
    country: z.enum(COUNTRIES),
    site_count: z.optional(z.int().check(z.gte(1), z.lte(MAX_SITES))),
    first_site: z.optional(
      z.strictObject({ city: plainText(64), latitude: coordinate(90), longitude: coordinate(180) }),
    ),
    /** The hotspot's first router, registered for its NAS id (as POST /api/v1/routers would). */
    first_router: z.optional(
      z.strictObject({
        name: plainText(64),
        transport: z.enum(ROUTER_TRANSPORTS),
        source_ip: z.optional(z.string().check(z.maxLength(45))),
      }),
    ),
  }),
);
export const OnboardResponse = /* @__PURE__ */ schema(() =>
  z.object({
    reseller_id: z.string(),
    msisdn: z.string(),
    vlan_id: z.int(),
    subnet: z.string(),
    nas_id: z.string(),
    ssid: z.string(),
    site: z.optional(SiteResponse),
    /** The first router and its credentials, shown this once (the secret or the private key). */
    router: z.optional(RouterCredentials),
  }),
);
