// The routers' request and answer schemas.

import * as z from 'zod/mini';
import { plainText, schema, uuid } from '../core/schemas.js';
import { ROUTER_TRANSPORTS } from '../store/routers.js';

const nasId = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'must be a NAS id')),
);
const routerId = /* @__PURE__ */ schema(() =>
  z.string().check(z.regex(/^[a-z0-9_]{1,64}$/, 'must be a router id')),
);

export const RouterBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    reseller_id: uuid(),
    name: plainText(64),
    /** The NAS ids (hotspots) this router may speak for: all of the reseller's. */
    nas_ids: z.array(nasId).check(z.minLength(1), z.maxLength(50)),
    /** `radsec`: a client certificate (routers behind NAT, RouterOS 7). `udp`: a secret bound to `source_ip`. */
    transport: z.enum(ROUTER_TRANSPORTS),
    /** UDP only: the public address the router's RADIUS packets come from. */
    source_ip: z.optional(z.string().check(z.maxLength(45))),
  }),
);

export const RouterParams = /* @__PURE__ */ schema(() => z.strictObject({ router_id: routerId }));
export const RoutersQuery = /* @__PURE__ */ schema(() => z.strictObject({ reseller_id: z.optional(uuid()) }));

export const RouterView = /* @__PURE__ */ schema(() =>
  z.object({
    router_id: z.string(),
    reseller_id: z.string(),
    name: z.string(),
    nas_ids: z.array(z.string()),
    transport: z.enum(ROUTER_TRANSPORTS),
    source_ip: z.optional(z.string()),
    cert_serial: z.optional(z.string()),
    cert_not_after: z.optional(z.string()),
    status: z.enum(['active', 'revoked']),
    created_at: z.string(),
    revoked_at: z.optional(z.string()),
    /** When a request of the router (a login, an accounting report) last reached the platform, to 5 minutes. */
    last_heard_at: z.optional(z.string()),
    /** Set while the silence job has it silent (its last-heard time then); cleared when heard again. */
    silent_since: z.optional(z.string()),
    /**
     * From its own traffic: `never_seen` (no request yet), `online` (heard within
     * ROUTER_SILENT_AFTER_MIN, 30 minutes by default), `silent` (since `last_heard_at`).
     */
    state: z.enum(['never_seen', 'online', 'silent']),
  }),
);

export const RoutersList = /* @__PURE__ */ schema(() =>
  z.object({ items: z.array(RouterView), total: z.int() }),
);

/** Given once, when issued: the private key or the secret is not kept in clear and never shown again. */
export const RouterCredentials = /* @__PURE__ */ schema(() =>
  z.object({
    router: RouterView,
    credentials: z.union([
      z.object({ transport: z.literal('udp'), secret: z.string(), source_ip: z.string() }),
      z.object({
        transport: z.literal('radsec'),
        certificate_pem: z.string(),
        private_key_pem: z.string(),
        ca_pem: z.string(),
        serial: z.string(),
      }),
    ]),
    /**
     * The router's RouterOS setup script, with these credentials in it (a `.rsc` file to paste or
     * import); absent where the platform has no RADIUS_HOST setting.
     */
    routeros_script: z.optional(z.string()),
  }),
);
