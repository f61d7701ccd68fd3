// The top-ups' request and answer schemas.

import * as z from 'zod/mini';
import { schema, uuid } from '../core/schemas.js';

/** A top-up: the forfait whose time and data are added to the code (its price is the sale's). */
export const TopupBody = /* @__PURE__ */ schema(() => z.strictObject({ forfait_id: uuid() }));
export const TopupResponse = /* @__PURE__ */ schema(() =>
  z.object({
    code: z.string(),
    forfait_id: z.string(),
    forfait_name: z.string(),
    price_fcfa: z.int(),
    /** The code's time and data after the top-up (data 0: no cap). */
    duration_hours: z.number(),
    data_limit_mb: z.int(),
    /** Its new end, once its clock has started (before: `duration_hours` from its first login). */
    expires_at: z.optional(z.string()),
    topups: z.int(),
  }),
);
