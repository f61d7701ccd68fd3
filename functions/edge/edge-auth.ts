// An in-country edge's token made when an operator registers the edge, and the edge routes' check of it (edge-token.ts; held for RADIUS_ROUTER_HOLD_S on the RADIUS rows).

import { randomBytes, randomUUID } from 'node:crypto';
import { acceptEdgeTokens } from '../core/caller.js';
import type { EdgePrincipal } from '../core/principal.js';
import { radiusSettings } from '../radius/settings.js';
import { createEdge, type EdgeRecord } from '../store/edges.js';
import { digestOf, edgeOfBearer } from './edge-token.js';

/**
 * Tokens found valid, by their digest, with when: an edge's RADIUS calls (its forwarded and
 * replayed exchanges, hundreds a minute) are judged from memory for RADIUS_ROUTER_HOLD_S, as its
 * routers are (functions/radius/table-store.ts); its replica, which carries its routers'
 * secrets, is answered only on a token read at that call (and the router keys function reads it
 * again before it opens any secret).
 */
const verified = new Map<string, { at: number; edge: EdgePrincipal }>();

/** The edge routes' check: the active edge whose token this header carries, else undefined. */
async function edgeOfRequest(
  authorization: string | undefined,
  path: string,
): Promise<EdgePrincipal | undefined> {
  const holdMs = path.startsWith('/api/v1/edge/radius/') ? radiusSettings().RADIUS_ROUTER_HOLD_S * 1000 : 0;
  const key = authorization ? digestOf(authorization) : '';
  const held = holdMs > 0 ? verified.get(key) : undefined;
  if (held && Date.now() - held.at < holdMs) return held.edge;
  const edge = await edgeOfBearer(authorization);
  if (!edge || holdMs <= 0) return edge;
  if (verified.size >= 1000) verified.clear();
  verified.set(key, { at: Date.now(), edge });
  return edge;
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
acceptEdgeTokens(edgeOfRequest);
