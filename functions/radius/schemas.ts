import * as z from 'zod/mini';

/** FreeRADIUS's `rest` module body: each request attribute as `{type, value: [...]}`. */
export const RestRequest = z.record(
  z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a RADIUS attribute name')),
  z.strictObject({
    type: z.string().check(z.maxLength(32)),
    value: z.array(z.union([z.string().check(z.maxLength(4096)), z.number()])).check(z.maxLength(16)),
  }),
);

const literalValue = z.object({ value: z.string(), do_xlat: z.literal(false), op: z.optional(z.string()) });

/** The attributes FreeRADIUS applies: `reply:` and `control:` lists, numbers or literal strings. */
export const RestReply = z.record(z.string(), z.union([z.number(), literalValue]));

const nasId = z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'must be a NAS id'));

export const CodeCheckBody = z.strictObject({
  nas_id: nasId,
  code: z.string().check(z.minLength(1), z.maxLength(32)),
});

const refusal = z.enum(['unknown_code', 'wrong_hotspot', 'expired', 'data_used', 'device_limit']);

export const CodeCheckResult = z.union([
  z.object({ valid: z.literal(true), seconds_remaining: z.int(), bytes_remaining: z.nullable(z.int()) }),
  z.object({ valid: z.literal(false), reason: refusal }),
]);

export const MyCodesQuery = z.strictObject({ nas_id: z.optional(nasId) });

export const MyCodes = z.object({
  items: z.array(
    z.object({
      code: z.string(),
      forfait_name: z.nullable(z.string()),
      seconds_remaining: z.int(),
      bytes_remaining: z.nullable(z.int()),
      expires_at: z.nullable(z.string()),
    }),
  ),
});
