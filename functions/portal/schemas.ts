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
