// The monitoring routes' request and answer schemas: status, overview, alerts, sessions, activity.

import * as z from 'zod/mini';
import { cursorPage, cursorQuery, day, pageQuery, pageSchema, schema, uuid } from '../core/schemas.js';
import { DisconnectViewSchema } from '../radius/schemas.js';
import { CHECK_NAMES } from './checks/types.js';

export const OVERALL_STATUSES = ['healthy', 'degraded', 'down'] as const;
export const PUBLIC_STATUSES = ['operational', 'degraded', 'down'] as const;
export const COMPONENT_STATUSES = ['operational', 'down', 'unknown'] as const;
export const ALERT_STATUSES = ['active', 'acked'] as const;

/** `GET /monitoring/status` (public): what anyone may know, nothing internal. */
export const PublicStatusSchema = /* @__PURE__ */ schema(() =>
  z.object({
    status: z.enum(PUBLIC_STATUSES),
    components: z.array(z.object({ name: z.string(), status: z.enum(COMPONENT_STATUSES) })),
    updated_at: z.string(),
    /** Countries whose international link is cut now, each with its line for the page. */
    notices: z.optional(
      z.array(
        z.object({
          country: z.string(),
          kind: z.literal('link_cut'),
          since: z.string(),
          message: z.string(),
        }),
      ),
    ),
  }),
);

export const OverviewSchema = /* @__PURE__ */ schema(() =>
  z.object({
    sessions_active: z.int(),
    uptime_pct: z.number(),
    alerts_active: z.int(),
    sla_pct: z.number(),
    /** Canary runs the two percentages are computed from (last 30 days). */
    runs_30d: z.int(),
  }),
);

export const CanaryTestSchema = /* @__PURE__ */ schema(() =>
  z.object({
    name: z.enum(CHECK_NAMES),
    success: z.boolean(),
    latency_ms: z.int(),
    error: z.optional(z.string()),
    throughput_kbps: z.optional(z.int()),
  }),
);

export const CanaryStatusSchema = /* @__PURE__ */ schema(() =>
  z.object({
    last_run: z.nullable(z.string()),
    consecutive_fails: z.int(),
    overall_status: z.enum([...OVERALL_STATUSES, 'unknown']),
    /** The hotspot the canary stands for (its NAS id): the platform's own, listed as no reseller. */
    site: z.optional(z.string()),
    tests: z.array(CanaryTestSchema),
  }),
);

export const AlertSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    type: z.string(),
    severity: z.string(),
    site: z.string(),
    ts: z.string(),
    acked: z.boolean(),
    acked_by: z.nullable(z.string()),
    acked_at: z.nullable(z.string()),
    message: z.string(),
  }),
);

export const AlertsQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({
    status: z._default(z.enum([...ALERT_STATUSES, 'all']), 'all'),
    ...pageQuery,
  }),
);
export const AlertsPage = /* @__PURE__ */ schema(() => pageSchema(AlertSchema));

export const AlertIdParams = /* @__PURE__ */ schema(() => z.strictObject({ id: uuid() }));
/**
 * `user_id` is accepted for compatibility with the first clients and ignored: `acked_by` is the
 * token's subject, so nobody can ack in another's name. The body may be `{}`.
 */
export const AckBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    user_id: z.optional(
      uuid().check(z.meta({ description: "Ignored: acked_by is the caller's own id (the token's subject)" })),
    ),
  }),
);

export const NoQuery = /* @__PURE__ */ schema(() => z.strictObject({}));

export const LiveSessionsQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({ reseller_id: z.optional(uuid()), ...cursorQuery() }),
);
/** Exactly one of `code` (as typed: spaces, dashes, any case) and `phone` (as people write it). */
export const EndedSessionsQuery = /* @__PURE__ */ schema(() =>
  z
    .strictObject({
      reseller_id: z.optional(uuid()),
      code: z.optional(z.string().check(z.maxLength(40), z.regex(/^[\s-]*(?:[A-Za-z0-9][\s-]*){4,16}$/))),
      phone: z.optional(z.string().check(z.maxLength(32))),
    })
    .check(
      z.refine<{ code?: string; phone?: string }>(
        (q) => (q.code === undefined) !== (q.phone === undefined),
        'give a code or a phone, not both',
      ),
    ),
);
export const EndedSessionsResponse = /* @__PURE__ */ schema(() =>
  z.object({
    /** Newest end first, at most 50, none older than 30 days. */
    items: z.array(
      z.object({
        id: z.string(),
        code: z.string(),
        nas_id: z.string(),
        mac: z.optional(z.string()),
        forfait_name: z.optional(z.string()),
        started_at: z.string(),
        closed_at: z.string(),
        /** `stop`, `nas_restart`, `stale`, `disconnect`, `released`. */
        close_reason: z.optional(z.string()),
        total_bytes: z.number(),
        session_time_s: z.int(),
      }),
    ),
  }),
);
export const LiveSessionsPage = /* @__PURE__ */ schema(() =>
  cursorPage(
    z.object({
      id: z.string(),
      nas_id: z.string(),
      code: z.string(),
      /** `<nas_id>/<MAC>`, or `<nas_id>/port:<n>` from a router that sends no MAC. */
      device: z.string(),
      /** The device's MAC, `AA:BB:CC:DD:EE:FF` (absent when the router sent none). */
      mac: z.optional(z.string()),
      forfait_id: z.optional(z.string()),
      /** The forfait's name as sold (absent for a code no longer stored). */
      forfait_name: z.optional(z.string()),
      started_at: z.string(),
      last_report_at: z.string(),
      total_bytes: z.number(),
      session_time_s: z.int(),
      /** Until the access code's end (absent while its clock has not started). */
      seconds_left: z.optional(z.int()),
      /** Megabytes left on the code (absent: no cap). */
      data_left_mb: z.optional(z.int()),
    }),
  ),
);

export const ActivityQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({
    /** A UTC day, YYYY-MM-DD (default: today); ignored with `actor`. */
    day: z.optional(day()),
    /** One operator's or reseller's entries (its account id, the token's `sub`), every day. */
    actor: z.optional(uuid()),
    ...cursorQuery(),
  }),
);
export const ActivityPage = /* @__PURE__ */ schema(() =>
  cursorPage(
    z.object({
      at: z.string(),
      id: z.string(),
      actor_sub: z.string(),
      actor_ref: z.string(),
      role: z.enum(['reseller', 'admin', 'agent']),
      reseller_id: z.optional(z.string()),
      action: z.string(),
      target: z.string(),
      status: z.int(),
      ip: z.string(),
      facts: z.optional(z.record(z.string(), z.union([z.string(), z.number()]))),
    }),
  ),
);

/** A RADIUS session's id: the Acct-Unique-Session-Id FreeRADIUS made (an MD5, in hex). */
const sessionId = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be a session id')),
);

export const SessionIdParams = /* @__PURE__ */ schema(() => z.strictObject({ id: sessionId }));

export const SessionViewSchema = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    code: z.string(),
    nas_id: z.string(),
    reseller_id: z.string(),
    subscriber_id: z.optional(z.string()),
    device: z.string(),
    /** The User-Name the router knows the session by, when not the code (a MAC login: the MAC). */
    user_name: z.optional(z.string()),
    acct_session_id: z.optional(z.string()),
    nas_ip: z.optional(z.string()),
    status: z.enum(['open', 'closed']),
    total_bytes: z.int(),
    session_time_s: z.int(),
    /** Bytes of earlier segments (the NAS reused its session id after a counter reset). */
    base_bytes: z.optional(z.int()),
    input_bytes: z.optional(z.int()),
    output_bytes: z.optional(z.int()),
    /** Event-Timestamp of the latest report, epoch seconds. */
    event_time: z.optional(z.int()),
    started_at: z.string(),
    last_report_at: z.string(),
    closed_at: z.optional(z.string()),
    close_reason: z.optional(z.enum(['stop', 'nas_restart', 'stale', 'disconnect', 'released'])),
    disconnect: z.nullable(DisconnectViewSchema),
  }),
);
