import * as z from 'zod/mini';
import { intParam, pageQuery, pageSchema, uuid } from '../core/schemas.js';
import { customCssProblem, logoUrlProblem } from './branding-rules.js';
import { MAX_SITES } from './settings.js';

const rule = (problem: (v: string) => string | null) =>
  z.superRefine((value: string, ctx) => {
    const why = problem(value);
    if (why) ctx.addIssue({ code: 'custom', message: why, input: value });
  });

const colour = () => z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb'));
// Any text: a NAS id this service never issued is unknown (404), not malformed.
const nasIdParam = z.string().check(z.minLength(1), z.maxLength(200));
const label = (max: number) =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(max),
      z.regex(/^[^\p{Cc}]*$/u, 'must not contain control characters'),
    );

/**
 * The full variant gives the name and the site count; the other only `reseller_id`, and the
 * name (and site count, else 1) on record are used.
 */
export const AllocateBody = z.strictObject({
  reseller_id: uuid(),
  reseller_name: z.optional(label(64)),
  site_count: z.optional(z.int().check(z.gte(1), z.lte(MAX_SITES))),
});

export const AllocationResponse = z.object({
  vlan_id: z.int(),
  subnet: z.string(),
  nas_id: z.string(),
  ssid: z.string(),
});

export const VlanItem = z.object({
  vlan_id: z.int(),
  reseller_id: z.string(),
  reseller_name: z.string(),
  subnet: z.string(),
  nas_id: z.string(),
  ssid: z.string(),
  site_count: z.int(),
  created_at: z.string(),
});
export const VlansQuery = z.strictObject({ ...pageQuery });
export const VlansPage = pageSchema(VlanItem);
// Any integer: one that is not allocated is a 404.
export const VlanParams = z.strictObject({ vlan_id: intParam(-999_999_999, 999_999_999) });

export const SiteBody = z.strictObject({
  reseller_id: uuid(),
  site_number: z.int().check(z.gte(1), z.lte(MAX_SITES)),
  city: label(64),
  latitude: z.number().check(z.gte(-90), z.lte(90)),
  longitude: z.number().check(z.gte(-180), z.lte(180)),
});
export const SiteResponse = z.object({
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
});
export const SitesParams = z.strictObject({ reseller_id: uuid() });
export const SitesList = z.object({ items: z.array(SiteResponse), total: z.int() });

export const BrandingParams = z.strictObject({ nas_id: nasIdParam });
export const BrandingQuery = z.strictObject({ view: z.optional(z.enum(['portal', 'full'])) });
export const BrandingResponse = z.object({
  nas_id: z.string(),
  reseller_name: z.string(),
  logo_url: z.string(),
  primary_color: z.string(),
  secondary_color: z.optional(z.string()),
  banner_rotation_seconds: z.optional(z.int()),
  custom_css: z.optional(z.string()),
});
export const BrandingBody = z
  .strictObject({
    logo_url: z.optional(z.string().check(rule(logoUrlProblem))),
    primary_color: z.optional(colour()),
    secondary_color: z.optional(colour()),
    banner_rotation_seconds: z.optional(z.int().check(z.gte(3), z.lte(600))),
    custom_css: z.optional(z.string().check(rule(customCssProblem))),
  })
  .check(
    z.refine(
      (b) => Object.keys(b).length > 0,
      'give at least one of logo_url, primary_color, secondary_color, banner_rotation_seconds, custom_css',
    ),
  );

export const DnsStatusResponse = z.object({
  unbound_healthy: z.boolean(),
  blocklist_count: z.int(),
  sinkhole_ip: z.string(),
  /** `1970-01-01T00:00:00.000Z` until the DNS host first reports. */
  last_update: z.string(),
  /** When the canary last checked the resolver; absent before its first run. */
  checked_at: z.optional(z.string()),
});
export const DnsReportBody = z.strictObject({
  blocklist_count: z.int().check(z.gte(0), z.lte(100_000_000)),
  sinkhole_ip: z.string().check(z.ipv4()),
  last_update: z.string().check(z.iso.datetime({ offset: true })),
});

// Any integer filters (an id outside the pool has no rules); anything else is a 400.
export const RulesQuery = z.strictObject({ vlan: z.optional(intParam(-999_999_999, 999_999_999)) });
export const RulesResponse = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      vlan: z.int(),
      rule_type: z.string(),
      description: z.string(),
      active: z.boolean(),
    }),
  ),
});
