// An in-country edge's token: made when an operator registers the edge, and checked on each of its calls while the edge is active.

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { acceptEdgeTokens } from '../core/caller.js';
import { safeEqual } from '../core/compare.js';
import type { EdgePrincipal } from '../core/principal.js';
import { createEdge, type EdgeRecord, getEdge } from '../store/edges.js';

/**
 * An edge's bearer token: `edge_<edge_id>.<secret>`. The region stores the SHA-256 of the secret
 * only; a request carrying the token is the edge's while its record is active (read on every
 * request, strongly consistent: a revoked edge is refused at its next call). Bearer-token
 * characters only, so it goes into FreeRADIUS's header and run.sh's check as the front's does.
 */
const TOKEN = /^edge_([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

const digestOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The active edge whose token this `Authorization` header carries, else undefined. */
async function edgeOfBearer(authorization: string | undefined): Promise<EdgePrincipal | undefined> {
  const given = /^Bearer (\S+)$/.exec(authorization?.trim() ?? '')?.[1] ?? '';
  const match = TOKEN.exec(given);
  if (!match) return undefined;
  const edge = await getEdge(match[1] as string);
  if (edge?.status !== 'active') return undefined;
  if (!safeEqual(digestOf(match[2] as string), edge.token_digest)) return undefined;
  return { role: 'edge', edgeId: edge.edge_id, resellerIds: edge.reseller_ids };
}

/** Registers an edge for some resellers (operator CLI); its token is shown once. */
export async function registerEdge(input: {
  name: string;
  reseller_ids: string[];
  addresses: string[];
  nowIso: string;
}): Promise<{ edge: EdgeRecord; token: string }> {
  const edgeId = randomUUID();
  const secret = randomBytes(32).toString('base64url');
  const edge: EdgeRecord = {
    edge_id: edgeId,
    name: input.name,
    reseller_ids: [...new Set(input.reseller_ids)],
    addresses: [...new Set(input.addresses)],
    token_digest: digestOf(secret),
    status: 'active',
    created_at: input.nowIso,
  };
  await createEdge(edge);
  return { edge, token: `edge_${edgeId}.${secret}` };
}

// The `edge` rows' functions import this module: their auth level checks an edge's token with it.
acceptEdgeTokens(edgeOfBearer);
