import { entity, exists, notExists } from './entity.js';

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
  /** SHA-256 (hex) of the token's secret part. */
  token_digest: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at?: string;
}

const Edge = entity<EdgeRecord>('edge')({
  key: (e: Pick<EdgeRecord, 'edge_id'>) => ({ pk: `EDGE#${e.edge_id}`, sk: 'EDGE' }),
});

// Access: GetItem pk=EDGE#<id>, sk=EDGE (strongly consistent: a revocation counts at once).
export const getEdge = (edgeId: string): Promise<EdgeRecord | undefined> =>
  Edge.get({ edge_id: edgeId }, { consistent: true });

// Access: PutItem pk=EDGE#<id> attribute_not_exists(pk).
export const createEdge = (edge: EdgeRecord): Promise<boolean> => Edge.put(edge, notExists);

/** Revokes an edge; false when there is none. */
// Access: UpdateItem pk=EDGE#<id> SET status = revoked, revoked_at (condition: it exists).
export const revokeEdge = (edgeId: string, nowIso: string): Promise<boolean> =>
  Edge.update({ edge_id: edgeId }, { set: { status: 'revoked', revoked_at: nowIso } }, exists);
