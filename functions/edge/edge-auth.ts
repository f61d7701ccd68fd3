// An in-country edge's token made when an operator registers the edge, and the edge routes' check of it (edge-token.ts; held for RADIUS_ROUTER_HOLD_S on the RADIUS rows).

import { randomBytes, randomUUID } from 'node:crypto';
import { acceptEdgeTokens } from '../core/caller.js';
import { createEdge, type EdgeRecord } from '../store/edges.js';
import { digestOf, edgeOfBearer } from './edge-token.js';

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
