// The edge routes' request and answer schemas: the replica it asks for, with the codes it saw.

import * as z from 'zod/mini';
import { schema } from '../core/schemas.js';

/** `POST /edge/replica`: the codes the edge saw at its routers (refreshed with the rest). */
export const ReplicaBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    codes: z.optional(z.array(z.string().check(z.regex(/^[A-Z0-9]{1,64}$/))).check(z.maxLength(5000))),
  }),
);

/** What an edge answers from while its country is cut (functions/edge/replica.ts). */
export const ReplicaSchema = /* @__PURE__ */ schema(() =>
  z.object({
    edge_id: z.string(),
    generated_at: z.string(),
    routers: z.array(
      z.object({
        router_id: z.string(),
        reseller_id: z.string(),
        transport: z.enum(['radsec', 'udp']),
        source_ip: z.optional(z.string()),
        secret: z.optional(z.string()),
        /** A RadSec router's current certificate serial (a login over an older one is refused). */
        cert_serial: z.optional(z.string()),
        nas_ids: z.array(z.string()),
      }),
    ),
    nas: z.array(
      z.object({
        nas_id: z.string(),
        reseller_id: z.string(),
        vendor: z.enum(['mikrotik', 'coova', 'wispr']),
      }),
    ),
    codes: z.array(
      z.object({
        code: z.string(),
        reseller_id: z.string(),
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
