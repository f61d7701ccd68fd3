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

/** A Disconnect-Request's state (functions/store/disconnects.ts). */
export const DisconnectStatusSchema = /* @__PURE__ */ schema(() =>
  z.enum(['pending', 'sent', 'acked', 'failed']),
);
const disconnectOutcome = /* @__PURE__ */ schema(() => z.enum(['ack', 'nak', 'timeout']));

export const DisconnectViewSchema = /* @__PURE__ */ schema(() =>
  z.object({
    status: DisconnectStatusSchema,
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
