// An edge's bearer token read: its form, the digest the region keeps, and the active edge it names.

import { createHash } from 'node:crypto';
import { safeEqual } from '../core/compare.js';
import type { EdgePrincipal } from '../core/principal.js';
import { radiusSettings } from '../radius/settings.js';
import { getEdge } from '../store/edges.js';

/**
 * An edge's bearer token: `edge_<edge_id>.<secret>`. The region stores the SHA-256 of the secret
 * only; a request carrying the token is the edge's while its record is active (read on each
 * check, strongly consistent: a revoked edge is refused at its next call). Bearer-token
 * characters only, so it goes into FreeRADIUS's header and run.sh's check as the front's does.
 * Checked by the edge routes' auth level (functions/edge/edge-auth.ts) and again by the router
 * keys function (functions/routers/router-keys.ts) before it opens any router's secret for an
 * edge: the public function in between cannot ask for another edge's routers.
 */
export const EDGE_TOKEN = /^edge_([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

export const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * Tokens found valid, by their digest, with when: an edge's RADIUS calls (its forwarded and
 * replayed exchanges, hundreds a minute) are judged from memory for RADIUS_ROUTER_HOLD_S, as its
 * routers are (functions/radius/table-store.ts); its replica, which carries its routers'
 * secrets, and the router keys function are answered only on a token read at that call.
 */
const verified = new Map<string, { at: number; edge: EdgePrincipal }>();

/**
 * The active edge whose token this `Authorization` header carries, else undefined; `path`, the
 * route asked (an edge's RADIUS rows may be judged from memory).
 */
export async function edgeOfBearer(
  authorization: string | undefined,
  path = '',
): Promise<EdgePrincipal | undefined> {
  const given = /^Bearer (\S+)$/.exec(authorization?.trim() ?? '')?.[1] ?? '';
  const match = EDGE_TOKEN.exec(given);
  if (!match) return undefined;
  const holdMs = path.startsWith('/api/v1/edge/radius/') ? radiusSettings().RADIUS_ROUTER_HOLD_S * 1000 : 0;
  const key = digestOf(given);
  const held = verified.get(key);
  if (held && Date.now() - held.at < holdMs) return held.edge;
  const edge = await getEdge(match[1] as string);
  if (edge?.status !== 'active') return undefined;
  if (!safeEqual(digestOf(match[2] as string), edge.token_digest)) return undefined;
  const principal: EdgePrincipal = { role: 'edge', edgeId: edge.edge_id, resellerIds: edge.reseller_ids };
  if (verified.size >= 1000) verified.clear();
  verified.set(key, { at: Date.now(), edge: principal });
  return principal;
}
