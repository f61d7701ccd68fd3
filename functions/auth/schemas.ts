// The login's request and answer schemas: OTP request and verification, device credential, session, erasure.

import * as z from 'zod/mini';
import { schema, uuid } from '../core/schemas.js';

/**
 * The shape the server accepts (functions/auth/otp.ts `compactMsisdn`): `+`, then 8 to 15 digits
 * not starting with 0, with spaces, dots, dashes and brackets anywhere. The request also checks
 * the numbering plan of the countries served (400 ERR_MSISDN_INVALID); the document shows the
 * shape, the server keeps its own error code for it.
 */
const MSISDN_SHAPE = '^[\\s.()-]*\\+[\\s.()-]*[1-9]([\\s.()-]*[0-9]){7,14}[\\s.()-]*$';
const msisdn = /* @__PURE__ */ schema(() =>
  z.string().check(
    z.maxLength(32),
    z.meta({
      pattern: MSISDN_SHAPE,
      description:
        'E.164: + and 8 to 15 digits (spaces, dots, dashes and brackets tolerated), in the numbering plan of a country the platform serves; on otp/request, with `country`, also the national form of that country',
      examples: ['+2250712345678'],
    }),
  ),
);

export const OtpRequestBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    msisdn,
    /**
     * Optional, sent by the captive portal: the hotspot the subscriber is at and the device's MAC
     * as the router passed it. With both (and a known hotspot), the request is budgeted per device
     * and per hotspot instead of per client address (every subscriber of a hotspot shares one).
     */
    nas_id: z.optional(
      z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(200),
          z.meta({ description: "The hotspot's NAS id (the portal's)", examples: ['access_chez_awa'] }),
        ),
    ),
    /**
     * Not a MAC (or an unknown hotspot) is not refused: the request is then budgeted per client
     * address, so a router's odd format never stops a login.
     */
    /**
     * Optional, sent by the console: the country (ISO 3166-1 alpha-2, a served one) a number
     * written without its country code is read in ("07 12 34 56 78" with `CI`). The answer then
     * gives the number as read (`msisdn`, E.164) and its `country`.
     */
    country: z.optional(
      z
        .string()
        .check(
          z.regex(/^[A-Z]{2}$/, 'must be a country code such as CI'),
          z.meta({ description: 'Where a national number is read', examples: ['CI', 'SN'] }),
        ),
    ),
    client_mac: z.optional(
      z.string().check(
        z.minLength(1),
        z.maxLength(64),
        z.meta({
          description: "The device's MAC as the router passed it",
          examples: ['AA:BB:CC:DD:EE:FF'],
        }),
      ),
    ),
  }),
);

export const OtpVerifyBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    msisdn,
    otp: z.string().check(z.regex(/^\d{6}$/, 'must be 6 digits')),
    /** Optional: the token returned by the request; when given it must be the current one. */
    otp_token: z.optional(uuid()),
    /**
     * Optional: a subscriber's portal asks for a device credential (`device_token` in the answer),
     * which gets a session again for 30 days without an SMS (POST /api/v1/auth/device/session).
     */
    remember_device: z.optional(z.boolean()),
  }),
);

const deviceToken = /* @__PURE__ */ schema(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(128),
      z.meta({ description: 'The device credential an OTP verification with remember_device answered' }),
    ),
);
export const DeviceTokenBody = /* @__PURE__ */ schema(() => z.strictObject({ device_token: deviceToken }));

export const OtpRequestResponse = /* @__PURE__ */ schema(() =>
  z.object({
    otp_token: z.string(),
    /** With `country` in the request: the number as read, in E.164, and its country. */
    msisdn: z.optional(z.string()),
    country: z.optional(z.string()),
  }),
);
export const OtpVerifyResponse = /* @__PURE__ */ schema(() =>
  z.object({
    session_token: z.string(),
    subscriber_ref: z.string(),
    expires_in: z.int(),
    /** Only when `remember_device` was asked, for a subscriber: keep it, show it to nobody. */
    device_token: z.optional(z.string()),
    /**
     * An operator's or an agent's console session: renews the session token without an SMS
     * (POST /api/v1/auth/refresh) while it is used, a working day at most. Keep it as the token.
     */
    refresh_token: z.optional(z.string()),
  }),
);
export const RefreshBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    refresh_token: z.string().check(z.minLength(1), z.maxLength(200)),
    /** A tab opened from another, sharing its token: a new session of its own, within the same day. */
    fork: z.optional(z.boolean()),
  }),
);
export const RefreshResponse = /* @__PURE__ */ schema(() =>
  z.object({ session_token: z.string(), refresh_token: z.string(), expires_in: z.int() }),
);
export const DeviceSessionResponse = /* @__PURE__ */ schema(() =>
  z.object({
    session_token: z.string(),
    subscriber_ref: z.string(),
    expires_in: z.int(),
  }),
);
export const SessionResponse = /* @__PURE__ */ schema(() =>
  z.object({
    valid: z.boolean(),
    subscriber_ref: z.string(),
    expires_at: z.string(),
    role: z.enum(['subscriber', 'reseller', 'admin', 'agent']),
    /** A reseller's business name, an agent's name; absent for an operator or a subscriber. */
    name: z.optional(z.string().check(z.meta({ examples: ['Chez Awa'] }))),
    /** The account's number as people write it in the reseller's country. */
    phone: z.string().check(z.meta({ examples: ['07 00 00 00 00'] })),
    /** The country its numbers and times are read in: the reseller's (ISO 3166-1 alpha-2). */
    country: z.optional(z.string().check(z.meta({ examples: ['CI', 'SN'] }))),
  }),
);

/** `POST /subscribers/erase` (admin): the number to erase. */
export const EraseBody = /* @__PURE__ */ schema(() => z.strictObject({ msisdn }));
/** What the erasure removed or changed, record by record (functions/auth/erase.ts). */
export const ErasureResponse = /* @__PURE__ */ schema(() =>
  z.object({
    account: z.boolean(),
    devices: z.int(),
    mac_bindings: z.int(),
    payments: z.int(),
    flags: z.int(),
    limits: z.int(),
  }),
);
