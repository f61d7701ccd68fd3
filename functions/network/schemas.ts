// The network routes' request and answer schemas: VLANs, sites, branding, logo, DNS, firewall rules.

import * as z from 'zod/mini';
import { intParam, pageQuery, pageSchema, plainText, schema, uuid } from '../core/schemas.js';
import { logoUrlProblem, MAX_CSS_BYTES, normalizedLogoUrl } from './branding-rules.js';
import { coordinate, resellerName, SiteResponse } from './reseller-schemas.js';
import { MAX_SITES } from './settings.js';

export { SiteResponse };

const rule = (problem: (v: string) => string | null) =>
  z.superRefine((value: string, ctx) => {
    const why = problem(value);
    if (why) ctx.addIssue({ code: 'custom', message: why, input: value });
  });

const colour = () => z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb'));
// Any text: a NAS id this service never issued is unknown (404), not malformed.
const nasIdParam = /* @__PURE__ */ schema(() => z.string().check(z.minLength(1), z.maxLength(200)));

/**
 * The logo URL rules (functions/network/branding-rules.ts), plus: no character that would end
 * an HTML attribute or a JavaScript string where a dashboard writes the URL (`"`, `'`, `<`, `>`,
 * `` ` ``; a real URL percent-encodes them). Stored and answered as the URL parser serialises it.
 */
const LOGO_URL_UNSAFE = /["'<>`]/;
const logoUrl = /* @__PURE__ */ schema(() =>
  z.pipe(
    z.string().check(
      z.maxLength(2048),
      z.refine((v: string) => !LOGO_URL_UNSAFE.test(v), {
        message: 'must not contain quotes, <, > or ` (percent-encode them)',
      }),
      rule(logoUrlProblem),
      z.meta({
        format: 'uri',
        pattern: '^https://[^"\'<>`\\\\@\\s]+$',
        description:
          'https:// on a public host name (no IP address in any notation, no credentials, no port other than 443, no private suffix such as .local or .internal, no nip.io-like names); no backslash, spaces, quotes, < > or `; at most 2048 characters. Answered as the URL parser serialises it.',
      }),
    ),
    z.transform((v: string) => normalizedLogoUrl(v) ?? v),
  ),
);

/**
 * The full variant gives the name and the site count; the other only `reseller_id`, and the
 * name (and site count, else 1) on record are used.
 */
export const AllocateBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    reseller_id: uuid(),
    reseller_name: z.optional(resellerName),
    site_count: z.optional(z.int().check(z.gte(1), z.lte(MAX_SITES))),
  }),
);

export const AllocationResponse = /* @__PURE__ */ schema(() =>
  z.object({
    vlan_id: z.int(),
    subnet: z.string(),
    nas_id: z.string(),
    ssid: z.string(),
  }),
);

const VlanItem = /* @__PURE__ */ schema(() =>
  z.object({
    vlan_id: z.int(),
    reseller_id: z.string(),
    reseller_name: z.string(),
    subnet: z.string(),
    nas_id: z.string(),
    ssid: z.string(),
    site_count: z.int(),
    created_at: z.string(),
  }),
);
export const VlansQuery = /* @__PURE__ */ schema(() => z.strictObject({ ...pageQuery }));
export const VlansPage = /* @__PURE__ */ schema(() => pageSchema(VlanItem));
// Any integer: one that is not allocated is a 404.
export const VlanParams = /* @__PURE__ */ schema(() =>
  z.strictObject({ vlan_id: intParam(-999_999_999, 999_999_999) }),
);

export const SiteBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    reseller_id: uuid(),
    site_number: z
      .int()
      .check(
        z.gte(1),
        z.lte(MAX_SITES),
        z.meta({ description: "1 to the reseller's site_count (given at VLAN allocation), each once" }),
      ),
    city: plainText(64),
    latitude: coordinate(90),
    longitude: coordinate(180),
  }),
);
export const SitesParams = /* @__PURE__ */ schema(() => z.strictObject({ reseller_id: uuid() }));
export const SitesList = /* @__PURE__ */ schema(() =>
  z.object({ items: z.array(SiteResponse), total: z.int() }),
);

export const BrandingParams = /* @__PURE__ */ schema(() => z.strictObject({ nas_id: nasIdParam }));

/** An origin as a browser writes it: `http(s)://host[:port]`, nothing after (no path, no credentials). */
const origin = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.maxLength(300),
    rule((v: string) => {
      try {
        const url = new URL(v);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be http:// or https://';
        return url.origin === v.replace(/\/$/, '') ? null : 'must be an origin only: scheme, host and port';
      } catch {
        return 'must be an origin such as http://login.wifi or http://10.5.50.1:8080';
      }
    }),
  ),
);
export const LoginOriginBody = /* @__PURE__ */ schema(() => z.strictObject({ login_origin: origin }));
export const LoginOriginResponse = /* @__PURE__ */ schema(() =>
  z.object({ nas_id: z.string(), login_origin: z.string() }),
);
export const BrandingQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ view: z.optional(z.enum(['portal', 'full'])) }),
);
export const BrandingResponse = /* @__PURE__ */ schema(() =>
  z.object({
    nas_id: z.string(),
    reseller_name: z.string(),
    logo_url: z.string(),
    primary_color: z.string(),
    secondary_color: z.optional(z.string()),
    banner_rotation_seconds: z.optional(z.int()),
    custom_css: z.optional(z.string()),
  }),
);
/** An uploaded logo: the file's bytes in base64 (the console resizes it first, see network/logo.ts). */
export const LogoBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    image: z.string().check(
      z.base64('must be the image file in base64'),
      z.meta({
        description:
          'A PNG or JPEG file, 40 KB at most, 16 to 512 pixels a side (decoded whole and encoded again)',
      }),
    ),
  }),
);
export const LogoParams = /* @__PURE__ */ schema(() =>
  z.strictObject({ nas_id: nasIdParam, hash: z.string().check(z.regex(/^[A-Za-z0-9_-]{16}$/)) }),
);

export const BrandingBody = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      logo_url: z.optional(logoUrl),
      primary_color: z.optional(colour()),
      secondary_color: z.optional(colour()),
      banner_rotation_seconds: z.optional(z.int().check(z.gte(3), z.lte(600))),
      custom_css: z.optional(
        z.string().check(
          // The size here; what the CSS may contain is checked by its parser on save (custom-css.ts).
          rule((css: string) =>
            Buffer.byteLength(css, 'utf8') > MAX_CSS_BYTES ? 'must be at most 10 KB' : null,
          ),
          z.meta({
            maxLength: MAX_CSS_BYTES,
            description: `Valid CSS of at most ${MAX_CSS_BYTES} bytes (UTF-8); no @import, no url() except inline images (data:image/...), no expression(, javascript: or </ (CSS escapes are decoded before the check)`,
          }),
        ),
      ),
    })
    .check(
      z.refine(
        (b) => Object.keys(b).length > 0,
        'give at least one of logo_url, primary_color, secondary_color, banner_rotation_seconds, custom_css',
      ),
    ),
);

export const DnsStatusResponse = /* @__PURE__ */ schema(() =>
  z.object({
    unbound_healthy: z.boolean(),
    blocklist_count: z.int(),
    sinkhole_ip: z.string(),
    /** `1970-01-01T00:00:00.000Z` until the DNS host first reports. */
    last_update: z.string(),
    /** When the canary last checked the resolver; absent before its first run. */
    checked_at: z.optional(z.string()),
  }),
);
export const DnsReportBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    blocklist_count: z.int().check(z.gte(0), z.lte(100_000_000)),
    sinkhole_ip: z.string().check(z.ipv4()),
    last_update: z.string().check(
      z.iso.datetime({ offset: true }),
      z.meta({
        description: 'ISO 8601 with an offset; not in the future (5 minutes of clock skew allowed)',
      }),
    ),
  }),
);

// Any integer filters (an id outside the pool has no rules); anything else is a 400.
export const RulesQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ vlan: z.optional(intParam(-999_999_999, 999_999_999)) }),
);
export const RulesResponse = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(
      z.object({
        id: z.string(),
        vlan: z.int(),
        rule_type: z.string(),
        description: z.string(),
        active: z.boolean(),
      }),
    ),
  }),
);
