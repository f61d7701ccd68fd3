// In-country edges: registered, read, revoked, and their addresses.

import { entity, exists, transact } from './entity.js';

/**
 * An in-country edge: a RADIUS front run on a machine in a country (docs/outage.md), which
 * forwards to the region while the link is up and answers from its replica when it is cut. It
 * holds a bearer token of its own (`edge_<edge_id>.<secret>`): the region keeps only the
 * secret's digest, and the edge is answered only for `reseller_ids`' routers and codes.
 * Revoked, its token is refused at its next request (functions/edge/edge-auth.ts).
 */
export interface EdgeRecord {
  edge_id: string;
  name: string;
  reseller_ids: string[];
  /** The addresses its routers reach it at: the router scripts list them after the front's. */
  addresses: string[];
  /** SHA-256 (hex) of the token's secret part. */
  token_digest: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
}

const Edge = entity<EdgeRecord>('edge')({
  key: (e: Pick<EdgeRecord, 'edge_id'>) => ({ pk: `EDGE#${e.edge_id}`, sk: 'EDGE' }),
});

/** A reseller's active edge, for its router scripts (one item per reseller the edge serves). */
interface EdgeLink {
  reseller_id: string;
  edge_id: string;
  addresses: string[];
}

const Link = entity<EdgeLink>('edge_link')({
  key: (l: Pick<EdgeLink, 'reseller_id' | 'edge_id'>) => ({
    pk: `RESELLER#${l.reseller_id}#EDGES`,
    sk: `EDGE#${l.edge_id}`,
  }),
});

// Access: GetItem pk=EDGE#<id>, sk=EDGE (strongly consistent: a revocation counts at once).
export const getEdge = (edgeId: string): Promise<EdgeRecord | undefined> =>
  Edge.get({ edge_id: edgeId }, { consistent: true });

/** Records a new edge and its link to each of its resellers, together. */
// Access: TransactWriteItems [Put EDGE#<id> attribute_not_exists(pk), Put RESELLER#<r>#EDGES/EDGE#<id> per reseller].
export async function createEdge(edge: EdgeRecord): Promise<void> {
  await transact({
    edge: Edge.tx.create(edge),
    ...Object.fromEntries(
      edge.reseller_ids.map((reseller_id, i) => [
        `link${i}`,
        Link.tx.put({ reseller_id, edge_id: edge.edge_id, addresses: edge.addresses }),
      ]),
    ),
  });
}

/** Revokes an edge and drops its links (its routers' next scripts name it no more); false when there is none. */
// Access: TransactWriteItems [Update EDGE#<id> SET status = revoked, revoked_at (condition: it exists), Delete each link].
export async function revokeEdge(edgeId: string, nowIso: string): Promise<boolean> {
  const edge = await getEdge(edgeId);
  if (!edge) return false;
  await transact({
    edge: Edge.tx.update({ edge_id: edgeId }, { set: { status: 'revoked', revoked_at: nowIso } }, exists),
    ...Object.fromEntries(
      edge.reseller_ids.map((reseller_id, i) => [
        `link${i}`,
        Link.tx.delete({ reseller_id, edge_id: edgeId }),
      ]),
    ),
  });
  return true;
}

/** The addresses of a reseller's active edges, in the order they were registered. */
// Access: Query pk=RESELLER#<id>#EDGES, begins_with(sk, EDGE#).
export async function edgeAddressesOf(resellerId: string): Promise<string[]> {
  const { pk } = Link.key({ reseller_id: resellerId, edge_id: '' });
  const links = await Link.queryAll({ pk, sk: { beginsWith: 'EDGE#' } });
  return [...new Set(links.flatMap((l) => l.addresses))];
}
