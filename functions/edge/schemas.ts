// The edge routes' request and answer schemas: the replica it asks for, with the codes it saw.

import * as z from 'zod/mini';
import { schema } from '../core/schemas.js';

/**
 * `POST /edge/replica`: nothing (a first sync), the `cursor` a last sync was handed (the changes
 * since), or the `page` a previous answer named. `codes`: what an older edge names; every live
 * code of its resellers is in the replica now, so it is taken and ignored.
 */
export const ReplicaBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    cursor: z.optional(z.string().check(z.maxLength(40))),
    page: z.optional(z.string().check(z.maxLength(2000))),
    codes: z.optional(z.array(z.string().check(z.regex(/^[A-Z0-9]{1,64}$/))).check(z.maxLength(5000))),
  }),
);

/** A page of what an edge answers from while its country is cut (functions/edge/replica.ts). */
export const ReplicaSchema = /* @__PURE__ */ schema(() =>
  z.object({
    edge_id: z.string(),
    generated_at: z.string(),
    kind: z.enum(['full', 'changes']),
    next_page: z.optional(z.string()),
    cursor: z.optional(z.string()),
    removed: z.array(z.string()),
    routers: z.optional(
      z.array(
        z.object({
          router_id: z.string(),
          reseller_id: z.string(),
          transport: z.enum(['radsec', 'udp']),
          source_ip: z.optional(z.string()),
          secret: z.optional(z.string()),
          cert_serial: z.optional(z.string()),
          nas_ids: z.array(z.string()),
        }),
      ),
    ),
    nas: z.optional(
      z.array(
        z.object({
          nas_id: z.string(),
          reseller_id: z.string(),
          vendor: z.enum(['mikrotik', 'coova', 'wispr']),
        }),
      ),
    ),
    codes: z.array(
      z.object({
        code: z.string(),
        reseller_id: z.string(),
        source: z.optional(z.enum(['voucher', 'payment', 'agent'])),
        offer: z.object({
          duration_hours: z.number(),
          data_limit_mb: z.number(),
          cir_kbps: z.number(),
          mir_kbps: z.number(),
          max_devices: z.int(),
        }),
        started_at: z.optional(z.string()),
        expires_at: z.optional(z.string()),
        use_by: z.optional(z.string()),
        used_bytes: z.number(),
      }),
    ),
  }),
);
