// The router keys function: the one reader of the seal key and the router CA's key, answering what a public function may ask.

import * as z from 'zod/mini';
import { clock } from '../core/clock.js';
import { log } from '../core/log.js';
import { getSecret } from '../core/secrets.js';
import { edgeOfBearer } from '../edge/edge-token.js';
import { routersOfReseller } from '../store/routers.js';
import { clientAt } from './router-secrets.js';
import { open, seal } from './secret-box.js';

/**
 * The router keys: the one function of the service that reads ROUTER_SEAL_KEY (which opens every
 * UDP router's secret) and ROUTER_CA_KEY (which signs routers' certificates). No function with a
 * public route reads either: those that register routers, issue new credentials or answer an
 * in-country edge ask this one (functions/routers/keys-client.ts), which the stack deploys with
 * no route, no URL, and an IAM policy that lets only them invoke it (lib/hotspot-stack.ts). A flaw
 * in a public function then gives an attacker what that function may ask for, never the keys:
 * - `seal`: a new UDP secret sealed for one router (sealing opens nothing);
 * - `certificate`: a new certificate for one router id (what registration issues anyway);
 * - `edge-secrets`, `edge-client`: the opened secrets of an edge's own resellers' routers, only
 *   for the edge's token, which this function checks itself (the public function in between
 *   cannot ask for another edge's, or for any router no edge serves).
 * Apart from it, the RADIUS front's service (its task's ECS secret: the client lookup and the
 * Disconnect claim) and the front's certificate rotation read them.
 */

export const KeysCall = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('seal'), router_id: z.string(), secret: z.string() }),
  z.strictObject({ op: z.literal('certificate'), router_id: z.string() }),
  z.strictObject({ op: z.literal('edge-secrets'), authorization: z.string() }),
  z.strictObject({ op: z.literal('edge-client'), authorization: z.string(), source_ip: z.string() }),
]);
export type KeysCall = z.infer<typeof KeysCall>;

/** A router's new certificate, its key and the CA's certificate (shown once to its owner). */
export interface RouterCertificate {
  certificate_pem: string;
  private_key_pem: string;
  ca_pem: string;
  serial: string;
  not_after: string;
}

/** What each call answers. */
export type KeysAnswer =
  | { secret_box: string }
  | RouterCertificate
  | { secrets: Record<string, string> }
  | { client: Record<string, unknown> | null }
  | { refused: 'edge_token' };

/**
 * A router id as registration makes it (`rtr_` and 12 of [a-z0-9]), or a fixed local name such as
 * the demo's `rtr_demo_udp`: what a certificate's CN and a FreeRADIUS shortname can carry as is.
 */
const ROUTER_ID = /^rtr_[a-z0-9_]{1,40}$/;

/** Answers one call; the keys are read here, once per container, and never leave. */
export async function answerKeys(call: KeysCall): Promise<KeysAnswer> {
  switch (call.op) {
    case 'seal':
      if (!ROUTER_ID.test(call.router_id)) throw new Error('seal: not a router id');
      return { secret_box: seal(await getSecret('ROUTER_SEAL_KEY'), call.router_id, call.secret) };
    case 'certificate': {
      if (!ROUTER_ID.test(call.router_id)) throw new Error('certificate: not a router id');
      const { caCertificatePem, issueRouterCertificate } = await import('./ca.mjs');
      const key = await getSecret('ROUTER_CA_KEY');
      const cert = await issueRouterCertificate(key, call.router_id, clock.now());
      log.info('router certificate issued', { routerId: call.router_id, serial: cert.serial });
      return {
        certificate_pem: cert.certPem,
        private_key_pem: cert.keyPem,
        ca_pem: await caCertificatePem(key),
        serial: cert.serial,
        not_after: cert.notAfter,
      };
    }
    case 'edge-secrets': {
      const edge = await edgeOfBearer(call.authorization);
      if (!edge) return { refused: 'edge_token' };
      const seed = await getSecret('ROUTER_SEAL_KEY');
      const routers = (await Promise.all(edge.resellerIds.map((r) => routersOfReseller(r)))).flat();
      const secrets: Record<string, string> = {};
      for (const r of routers) {
        if (r.status !== 'active' || !r.secret_box) continue;
        const secret = open(seed, r.router_id, r.secret_box);
        if (secret) secrets[r.router_id] = secret;
      }
      return { secrets };
    }
    case 'edge-client': {
      const edge = await edgeOfBearer(call.authorization);
      if (!edge) return { refused: 'edge_token' };
      return { client: (await clientAt(call.source_ip, edge.resellerIds)) ?? null };
    }
  }
}

/**
 * The Lambda function's handler (invoked by the public functions, never through a route): the
 * call checked, then answered. A malformed call is an error of the caller (its invocation
 * fails); nothing of the call is logged but its operation.
 */
export async function handler(event: unknown): Promise<KeysAnswer> {
  const call = KeysCall.safeParse(event);
  if (!call.success) throw new Error('router keys: not a call this function answers');
  return answerKeys(call.data);
}
