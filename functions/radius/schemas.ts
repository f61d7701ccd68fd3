// The RADIUS routes' request and answer schemas (FreeRADIUS's rest module body), and the code and session routes'.

import * as z from 'zod/mini';
import { schema } from '../core/schemas.js';

/**
 * FreeRADIUS's `rest` module body: each request attribute as `{type, value: [...]}`. Any JSON
 * object is taken: a router may send attributes this API has never heard of (a vendor's
 * `Attr-26.99999.1`, 17 `Class` values), and refusing the whole request for them would leave
 * the login with no message and the accounting unanswered (the NAS resends forever). What the
 * API cannot use (an odd name, an overlong value) is skipped when the attributes are read
 * (`requestAttributes`).
 */
export const RestRequest = /* @__PURE__ */ schema(() =>
  z.record(
    z.string().check(z.maxLength(256)),
    // The shape rlm_rest always sends; no limit on names, counts or lengths (the body's size is).
    z.strictObject({ type: z.string(), value: z.array(z.union([z.string(), z.number()])) }),
  ),
);

const literalValue = /* @__PURE__ */ schema(() =>
  z.object({ value: z.string(), do_xlat: z.literal(false), op: z.optional(z.string()) }),
);

/** The attributes FreeRADIUS applies: `reply:` and `control:` lists, numbers or literal strings. */
export const RestReply = /* @__PURE__ */ schema(() =>
  z.record(z.string(), z.union([z.number(), literalValue])),
);

const nasId = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'must be a NAS id')),
);

export const CodeCheckBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    nas_id: nasId,
    code: z.string().check(z.minLength(1), z.maxLength(32)),
  }),
);

/**
 * Why a code checked on the portal does not let anyone in; `unconfirmed`: the check does not say
 * (an unknown code, a printed card never used, or any code past the caller's budget: one answer
 * for all), and the router decides when the code is posted to it.
 */
const refusal = /* @__PURE__ */ schema(() =>
  z.enum(['expired', 'data_used', 'device_limit', 'revoked', 'unconfirmed']),
);

/**
 * `flood`, present only when true: the hotspot's routers have seen its wrong-code count spent in
 * this 10-minute window, whatever the code checked. A printed card then gets in on a device it
 * was not used on only with a login pass (`POST /api/v1/access/pass`, signed in).
 */
const flood = /* @__PURE__ */ schema(() => z.optional(z.literal(true)));

export const CodeCheckResult = /* @__PURE__ */ schema(() =>
  z.union([
    z.object({
      valid: z.literal(true),
      seconds_remaining: z.int(),
      bytes_remaining: z.nullable(z.int()),
      flood,
    }),
    z.object({ valid: z.literal(false), reason: refusal, flood }),
  ]),
);

/**
 * A login pass's answer: the code's own (time and data left, or why it no longer lets anyone
 * in), and for a valid one the pass, which lets this device in at this hotspot until
 * `pass_expires_at` however many wrong codes the hotspot sees. `first_use`: a printed card never
 * used (its clock starts at this login).
 */
export const LoginPassResult = /* @__PURE__ */ schema(() =>
  z.union([
    z.object({
      valid: z.literal(true),
      seconds_remaining: z.int(),
      bytes_remaining: z.nullable(z.int()),
      first_use: z.boolean(),
      pass_expires_at: z.string(),
    }),
    z.object({
      valid: z.literal(false),
      reason: z.enum(['expired', 'data_used', 'device_limit', 'revoked']),
    }),
  ]),
);

export const MyCodesQuery = /* @__PURE__ */ schema(() => z.strictObject({ nas_id: z.optional(nasId) }));

export const MyCodes = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(
      z.object({
        code: z.string(),
        forfait_name: z.nullable(z.string()),
        seconds_remaining: z.int(),
        bytes_remaining: z.nullable(z.int()),
        expires_at: z.nullable(z.string()),
        forfait_id: z.optional(z.string()),
        last_nas_id: z.optional(z.nullable(z.string())),
        max_devices: z.optional(z.int()),
      }),
    ),
    /** The subscriber's codes, newest first (20), active or not: purchases and redeemed vouchers. */
    history: z.optional(
      z.array(
        z.object({
          code: z.string(),
          forfait_id: z.string(),
          forfait_name: z.nullable(z.string()),
          source: z.enum(['voucher', 'payment']),
          created_at: z.string(),
          expires_at: z.nullable(z.string()),
          active: z.boolean(),
        }),
      ),
    ),
  }),
);

/** A RADIUS session's id: the Acct-Unique-Session-Id FreeRADIUS made (an MD5, in hex). */
const sessionId = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be a session id')),
);

export const SessionIdParams = /* @__PURE__ */ schema(() => z.strictObject({ id: sessionId }));

const disconnectStatus = /* @__PURE__ */ schema(() => z.enum(['pending', 'sent', 'acked', 'failed']));
const disconnectOutcome = /* @__PURE__ */ schema(() => z.enum(['ack', 'nak', 'timeout']));

export const DisconnectViewSchema = /* @__PURE__ */ schema(() =>
  z.object({
    status: disconnectStatus,
    reason: z.enum([
      'operator',
      'code_revoked',
      'account_removed',
      'data_used',
      'device_forgotten',
      'device_evicted',
    ]),
    attempts: z.int(),
    requested_at: z.string(),
    updated_at: z.string(),
    last_outcome: z.optional(disconnectOutcome),
    /** The router's Error-Cause (RFC 5176 section 3.6) with its last NAK. */
    error_cause: z.optional(z.int()),
  }),
);

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

export const CodeParams = /* @__PURE__ */ schema(() =>
  z.strictObject({
    code: z.string().check(z.regex(/^[A-Za-z0-9 -]{4,32}$/, 'must be an access code')),
  }),
);

export const RevokeResult = /* @__PURE__ */ schema(() =>
  z.object({
    code: z.string(),
    revoked_at: z.string(),
    /** The live sessions of the code, each with its Disconnect-Request's state. */
    disconnects: z.array(z.object({ session_id: z.string(), status: disconnectStatus })),
  }),
);

export const ClaimBody = /* @__PURE__ */ schema(() =>
  z.strictObject({ max: z.optional(z.int().check(z.gte(1), z.lte(50))) }),
);

export const ClaimResponse = /* @__PURE__ */ schema(() =>
  z.object({
    items: z.array(
      z.object({
        session_id: z.string(),
        attempt: z.int(),
        host: z.string(),
        port: z.int(),
        user_name: z.string(),
        acct_session_id: z.optional(z.string()),
        nas_identifier: z.string(),
        nas_ip_address: z.optional(z.string()),
        /** The router's own UDP secret to sign with; absent when no UDP router speaks for the NAS id. */
        secret: z.optional(z.string()),
      }),
    ),
  }),
);

export const ResultBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    attempt: z.int().check(z.gte(1), z.lte(100)),
    outcome: disconnectOutcome,
    error_cause: z.optional(z.int().check(z.gte(0), z.lte(65535))),
  }),
);

/** A MAC address as routers write it: six pairs of hex digits, `:` or `-` between or none. */
const mac = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[0-9A-Fa-f]{2}([:-]?[0-9A-Fa-f]{2}){5}$/, 'must be a MAC address')),
);

/** The portal's consent ("Reconnecter cet appareil automatiquement") or "Oublier cet appareil". */
export const DeviceBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    nas_id: nasId,
    code: z.string().check(z.minLength(1), z.maxLength(32)),
    mac,
  }),
);

export const RememberedDeviceSchema = /* @__PURE__ */ schema(() =>
  z.object({
    code: z.string(),
    /** `AA:BB:CC:DD:EE:FF`. */
    mac: z.string(),
    /** The hotspot the consent was given at. */
    nas_id: z.string(),
    bound_at: z.string(),
    /** Forgotten by itself then (the code's end). */
    expires_at: z.string(),
  }),
);

export const RememberResult = /* @__PURE__ */ schema(() =>
  z.object({
    ...RememberedDeviceSchema.shape,
    bound_devices: z.int(),
    max_devices: z.int(),
  }),
);

export const ForgetResult = /* @__PURE__ */ schema(() => z.object({ forgotten: z.boolean() }));

export const MyDevices = /* @__PURE__ */ schema(() => z.object({ items: z.array(RememberedDeviceSchema) }));

export const DeviceParams = /* @__PURE__ */ schema(() =>
  z.strictObject({
    code: z.string().check(z.regex(/^[A-Za-z0-9 -]{4,32}$/, 'must be an access code')),
    mac,
  }),
);
