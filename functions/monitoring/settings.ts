// The monitoring settings: what the canary probes, and how long each probe may take.

import * as z from 'zod/mini';
import { defineSettings } from '../core/config.js';
import { intSetting as int } from '../core/schemas.js';

/**
 * What the canary probes and how long each probe may take (docs/monitoring.md). The CDK
 * construct (lib/canary.ts) sets these from its `targets` prop; the local server sets the API
 * URL to itself. A target left empty fails its check with `not_configured`: an unconfigured
 * canary must not look healthy.
 */
const MonitoringSchema = z.object({
  /** The nas_id of the hotspot the canary stands for: the `site` of its alerts. */
  CANARY_SITE_NAS_ID: z._default(z.string().check(z.minLength(1)), 'access_canary'),
  /** Resolver to ask, `host` or `host:port` (IPv6: `[addr]:port`). */
  CANARY_DNS_SERVER: z._default(z.string(), ''),
  /** A name the resolver's blocklist redirects to the sinkhole. */
  CANARY_DNS_TEST_NAME: z._default(z.string(), ''),
  CANARY_SINKHOLE_IP: z._default(z.string(), ''),
  CANARY_DNS_TIMEOUT_MS: z._default(int, 2000),
  /** Public status URL of the API; empty: `${PUBLIC_BASE_URL}/api/v1/monitoring/status`. */
  CANARY_API_URL: z._default(z.string(), ''),
  CANARY_API_TIMEOUT_MS: z._default(int, 5000),
  CANARY_RADIUS_HOST: z._default(z.string(), ''),
  CANARY_RADIUS_PORT: z._default(int, 1812),
  /**
   * Local address the RADIUS check sends from (empty: the system's choice). The canary is a
   * registered UDP router like any other (its secret is RADIUS_SECRET, bound to the address its
   * packets come from): locally, a loopback address of its own.
   */
  CANARY_RADIUS_SOURCE: z._default(z.string(), ''),
  /** The canary's RADIUS account; its password is the secret CANARY_PASSWORD. */
  CANARY_RADIUS_USER: z._default(z.string(), 'canary'),
  CANARY_RADIUS_TIMEOUT_MS: z._default(int, 3000),
  CANARY_PORTAL_URL: z._default(z.string(), ''),
  /** Text the captive portal's page must contain (proves it is the portal, not an error page). */
  CANARY_PORTAL_MARKER: z._default(z.string(), ''),
  CANARY_PORTAL_TIMEOUT_MS: z._default(int, 5000),
  /** A file of known size, downloaded whole. */
  CANARY_DATA_URL: z._default(z.string(), ''),
  CANARY_DATA_BYTES: z._default(int, 0),
  CANARY_DATA_TIMEOUT_MS: z._default(int, 15000),
  /** Failed runs in a row that raise the SLA_DEGRADED alert. */
  CANARY_ALERT_AFTER: z._default(int, 3),
  /** A latest run older than this is not trusted by the public status page. */
  CANARY_STALE_AFTER_MS: z._default(int, 15 * 60_000),
  /** Operations topic (AWS); without it, alerts go to OPS_OUTBOX (local mode). */
  OPS_TOPIC_ARN: z._default(z.string(), ''),
  OPS_OUTBOX: z._default(z.string(), '.local/ops-outbox.jsonl'),
});

export type MonitoringSettings = z.infer<typeof MonitoringSchema>;

export const monitoringSettings = defineSettings(MonitoringSchema, (v) => [
  ...(v.CANARY_RADIUS_PORT > 0 && v.CANARY_RADIUS_PORT < 65536 ? [] : ['CANARY_RADIUS_PORT']),
  ...(v.CANARY_ALERT_AFTER >= 1 ? [] : ['CANARY_ALERT_AFTER']),
  ...[
    'CANARY_DNS_TIMEOUT_MS',
    'CANARY_API_TIMEOUT_MS',
    'CANARY_RADIUS_TIMEOUT_MS',
    'CANARY_PORTAL_TIMEOUT_MS',
    'CANARY_DATA_TIMEOUT_MS',
  ].filter((k) => {
    const ms = v[k as keyof MonitoringSettings] as number;
    return ms < 100 || ms > 60_000;
  }),
]);
