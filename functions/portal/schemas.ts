// The captive portal API's request and answer schemas.

import * as z from 'zod/mini';
import { schema } from '../core/schemas.js';

export const CaptiveParams = /* @__PURE__ */ schema(() =>
  z.strictObject({ nas_id: z.string().check(z.minLength(1), z.maxLength(200)) }),
);
export const CaptiveQuery = /* @__PURE__ */ schema(() =>
  z.strictObject({
    /** The device's MAC as the router writes it (`AA:BB:CC:DD:EE:FF`, `aabb.ccdd.eeff`, …). */
    mac: z.optional(z.string().check(z.maxLength(64))),
  }),
);
/** RFC 8908 section 5's fields (names with dashes, as the RFC writes them). */
export const CaptiveResponse = /* @__PURE__ */ schema(() =>
  z.object({
    captive: z.boolean(),
    'user-portal-url': z.string(),
    'venue-info-url': z.optional(z.string()),
    'seconds-remaining': z.optional(z.int()),
    'bytes-remaining': z.optional(z.int()),
    'can-extend-session': z.optional(z.boolean()),
  }),
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
