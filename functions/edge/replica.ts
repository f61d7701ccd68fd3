// What an in-country edge needs to answer its hotspots while cut from the region: its routers, hotspots and live codes.

import type { EdgePrincipal } from '../core/principal.js';
import { standing } from '../radius/standing.js';
import { routerKeys } from '../routers/keys-client.js';
import { Access, type AccessCode } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { Nas, type NasVendor } from '../store/nas.js';
import { routersOfReseller } from '../store/routers.js';

/**
 * What an in-country edge needs to answer its hotspots while the country is cut from the region
 * (docs/outage.md): its resellers' active routers (a UDP router's secret opened: the edge's
 * FreeRADIUS checks the router's packets with it), their NAS ids' vendors, and the codes that
 * can still log in there: every voucher of its resellers not used up (printed cards in stock and
 * running ones) and the codes the edge names (those it saw at its routers: a code bought by
 * mobile money is named once used there). A full snapshot each time; the edge asks again every
 * EDGE_SYNC_S while the link is up (functions/edge-service/service.ts), so a code sold elsewhere reaches it
 * within that lag.
 */
export interface ReplicaCode {
  code: string;
  reseller_id: string;
  offer: AccessCode['offer'];
  started_at?: string;
  expires_at?: string;
  use_by?: string;
  used_bytes: number;
}

export interface Replica {
  edge_id: string;
  generated_at: string;
  routers: {
    router_id: string;
    reseller_id: string;
    transport: 'radsec' | 'udp';
    source_ip?: string;
    secret?: string;
    /** A RadSec router's current certificate serial: a login over an older certificate is refused, as the region refuses it. */
    cert_serial?: string;
    nas_ids: string[];
  }[];
  nas: { nas_id: string; reseller_id: string; vendor: NasVendor }[];
  codes: ReplicaCode[];
}

/** Keys per BatchGetItem (DynamoDB's limit). */
const BATCH = 100;

async function readAll<T>(keys: readonly string[], read: (chunk: string[]) => Promise<(T | undefined)[]>) {
  const out: T[] = [];
  for (let i = 0; i < keys.length; i += BATCH) {
    for (const item of await read(keys.slice(i, i + BATCH))) if (item) out.push(item);
  }
  return out;
}

/**
 * The replica of `edge` at `nowMs`; `named`: codes the edge saw (any not its resellers' is left
 * out). Its UDP routers' secrets are opened by the router keys (functions/routers/router-keys.ts)
 * for the edge's own token (`authorization`, the request's header), which they check again.
 */
export async function replicaOf(
  edge: EdgePrincipal,
  named: readonly string[],
  nowMs: number,
  authorization = '',
): Promise<Replica> {
  const resellers = new Set(edge.resellerIds);
  const secrets = await routerKeys.edgeSecrets(authorization);
  const routers = (await Promise.all(edge.resellerIds.map((r) => routersOfReseller(r))))
    .flat()
    .filter((r) => r.status === 'active');
  const nasIds = [...new Set(routers.flatMap((r) => r.nas_ids))];
  const nas = await readAll(nasIds, (chunk) => batchGet(chunk.map((nas_id) => [Nas, { nas_id }] as const)));
  const vouchers = (
    await Promise.all(
      edge.resellerIds.map((r) => Access.queryIndexAll('vouchersByStatus', { reseller_id: r })),
    )
  ).flat();
  const codeKeys = [...new Set([...vouchers.map((v) => v.code), ...named])];
  const codes = await readAll(codeKeys, (chunk) =>
    batchGet(chunk.map((code) => [Access, { code }] as const)),
  );
  return {
    edge_id: edge.edgeId,
    generated_at: new Date(nowMs).toISOString(),
    routers: routers.map((r) => {
      const secret = secrets[r.router_id];
      return {
        router_id: r.router_id,
        reseller_id: r.reseller_id,
        transport: r.transport,
        ...(r.source_ip ? { source_ip: r.source_ip } : {}),
        ...(secret ? { secret } : {}),
        ...(r.cert_serial ? { cert_serial: r.cert_serial } : {}),
        nas_ids: r.nas_ids,
      };
    }),
    nas: nas
      .filter((n) => resellers.has(n.reseller_id))
      .map((n) => ({ nas_id: n.nas_id, reseller_id: n.reseller_id, vendor: n.vendor ?? 'mikrotik' })),
    codes: codes
      .filter((c) => resellers.has(c.reseller_id) && !('refused' in standing(c, nowMs)))
      .map((c) => ({
        code: c.code,
        reseller_id: c.reseller_id,
        offer: c.offer,
        ...(c.started_at ? { started_at: c.started_at } : {}),
        ...(c.expires_at ? { expires_at: c.expires_at } : {}),
        ...(c.use_by ? { use_by: c.use_by } : {}),
        used_bytes: c.used_bytes,
      })),
  };
}
