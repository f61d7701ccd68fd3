// In-country edges: registered, read, revoked, and their addresses.

import { anyOf, cancelled, entity, exists, notExists, transact } from './entity.js';
import { untilSettled } from './retry.js';

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
  /** The addresses its routers reach it at: the router scripts list them first, before the front's. */
  addresses: string[];
  /** It holds a RadSec server certificate of the router CA (`edges tls`): RadSec routers list it too. */
  radsec?: boolean;
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
  radsec?: boolean;
}

const Link = entity<EdgeLink>('edge_link')({
  key: (l: Pick<EdgeLink, 'reseller_id' | 'edge_id'>) => ({
    pk: `RESELLER#${l.reseller_id}#EDGES`,
    sk: `EDGE#${l.edge_id}`,
  }),
});

/**
 * A reseller's one edge. Two edges answering one reseller's hotspots during a cut would each
 * count a code's devices and grant its whole allowance (neither sees the other), so a reseller has
 * at most one active edge: this item, created with the edge (the transaction fails when the
 * reseller has one) and dropped by its revocation. An edge may serve several resellers.
 */
interface EdgeClaim {
  reseller_id: string;
  edge_id: string;
}

const Claim = entity<EdgeClaim>('edge_claim')({
  key: (c: Pick<EdgeClaim, 'reseller_id'>) => ({ pk: `RESELLER#${c.reseller_id}#EDGES`, sk: 'CLAIM' }),
});

/** A reseller given to a second edge: refused (`edges revoke` the first). */
export class ResellerHasEdge extends Error {
  readonly code = 'ERR_RESELLER_HAS_EDGE';
  constructor(readonly resellerIds: string[]) {
    super(`reseller ${resellerIds.join(', ')} already has an active edge`);
  }
}

// Access: GetItem pk=RESELLER#<id>#EDGES, sk=CLAIM.
export const edgeOfReseller = async (resellerId: string): Promise<string | undefined> =>
  (await Claim.get({ reseller_id: resellerId }, { consistent: true }))?.edge_id;

// Access: GetItem pk=EDGE#<id>, sk=EDGE (strongly consistent: a revocation counts at once).
export const getEdge = (edgeId: string): Promise<EdgeRecord | undefined> =>
  Edge.get({ edge_id: edgeId }, { consistent: true });

/**
 * Records a new edge, its claim on each of its resellers and its link to each, together; throws
 * {@link ResellerHasEdge} when one of them has an edge already (two registrations racing: one wins).
 */
// Access: TransactWriteItems [Put EDGE#<id> attribute_not_exists(pk), per reseller: Put RESELLER#<r>#EDGES/CLAIM attribute_not_exists(pk), Put RESELLER#<r>#EDGES/EDGE#<id>].
export async function createEdge(edge: EdgeRecord): Promise<void> {
  const claims = edge.reseller_ids.map((reseller_id, i) => [`claim${i}`, reseller_id] as const);
  const items = {
    edge: Edge.tx.create(edge),
    ...Object.fromEntries(
      claims.map(([name, reseller_id]) => [name, Claim.tx.create({ reseller_id, edge_id: edge.edge_id })]),
    ),
    ...Object.fromEntries(
      edge.reseller_ids.map((reseller_id, i) => [
        `link${i}`,
        Link.tx.put({
          reseller_id,
          edge_id: edge.edge_id,
          addresses: edge.addresses,
          ...(edge.radsec ? { radsec: true } : {}),
        }),
      ]),
    ),
  };
  let lost: unknown;
  await untilSettled(
    async () => {
      try {
        await transact(items);
        return true;
      } catch (error) {
        const refusal = cancelled<string>(error);
        const refused = refusal?.failedItems.filter((n) => n.startsWith('claim')) ?? [];
        if (refused.length)
          throw new ResellerHasEdge(claims.filter(([name]) => refused.includes(name)).map(([, r]) => r));
        // Another registration held a claim at the same instant: the next try sees who won.
        if (!refusal?.conflict) throw error;
        lost = error;
        return undefined;
      }
    },
    () => {
      throw lost;
    },
    3,
  );
}

/** Revokes an edge and drops its claims and links (its routers' next scripts name it no more); false when there is none. */
// Access: TransactWriteItems [Update EDGE#<id> SET status = revoked, revoked_at (condition: it exists), Delete each claim (condition: none, or this edge's), Delete each link].
export async function revokeEdge(edgeId: string, nowIso: string): Promise<boolean> {
  const edge = await getEdge(edgeId);
  if (!edge) return false;
  const ours = anyOf(notExists, Claim.where.is('edge_id', edgeId));
  await transact({
    edge: Edge.tx.update({ edge_id: edgeId }, { set: { status: 'revoked', revoked_at: nowIso } }, exists),
    // A revoked edge's claims are gone, and may be another edge's since.
    ...(edge.status === 'active'
      ? Object.fromEntries(
          edge.reseller_ids.map((reseller_id, i) => [`claim${i}`, Claim.tx.delete({ reseller_id }, ours)]),
        )
      : {}),
    ...Object.fromEntries(
      edge.reseller_ids.map((reseller_id, i) => [
        `link${i}`,
        Link.tx.delete({ reseller_id, edge_id: edgeId }),
      ]),
    ),
  });
  return true;
}

/** Records that an active edge holds a RadSec server certificate of the router CA; false when it is not active. */
// Access: TransactWriteItems [Update EDGE#<id> SET radsec (condition: active), Update each link SET radsec (condition: it exists)].
export async function markEdgeRadsec(edgeId: string): Promise<boolean> {
  const edge = await getEdge(edgeId);
  if (edge?.status !== 'active') return false;
  const active = Edge.where.is('status', 'active');
  await transact({
    edge: Edge.tx.update({ edge_id: edgeId }, { set: { radsec: true } }, active),
    ...Object.fromEntries(
      edge.reseller_ids.map((reseller_id, i) => [
        `link${i}`,
        Link.tx.update({ reseller_id, edge_id: edgeId }, { set: { radsec: true } }, exists),
      ]),
    ),
  });
  return true;
}

/** A reseller's active edge's addresses: for its UDP routers, and for its RadSec routers (when it holds a certificate of the router CA). */
// Access: Query pk=RESELLER#<id>#EDGES, begins_with(sk, EDGE#).
export async function edgeLinksOf(resellerId: string): Promise<{ udp: string[]; radsec: string[] }> {
  const { pk } = Link.key({ reseller_id: resellerId, edge_id: '' });
  const links = await Link.queryAll({ pk, sk: { beginsWith: 'EDGE#' } });
  return {
    udp: [...new Set(links.flatMap((l) => l.addresses))],
    radsec: [...new Set(links.flatMap((l) => (l.radsec ? l.addresses : [])))],
  };
}
