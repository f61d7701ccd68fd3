// Who is calling a route: its caller checked as the route's auth level demands (session token, bearer, secret, edge token).

import type { AuthLevel, Route } from '../routes.js';
import { digestMatches, digestOf, safeEqual } from './compare.js';
import { AppError } from './errors.js';
import type {
  AdminPrincipal,
  AgentScopePrincipal,
  EdgePrincipal,
  OperatorPrincipal,
  Principal,
} from './principal.js';
import { getSecret } from './secrets.js';

/** Who a route of each auth level is called by: a token's holder, or nobody in particular. */
export type PrincipalFor<A extends AuthLevel> = A extends 'jwt'
  ? Principal
  : A extends 'reseller'
    ? OperatorPrincipal
    : A extends 'admin'
      ? AdminPrincipal
      : A extends 'agent'
        ? AgentScopePrincipal
        : A extends 'edge'
          ? EdgePrincipal
          : undefined;

/**
 * The RADIUS servers' bearer tokens: the secret holds one per server, separated by white space
 * or commas, so that one server's token can be replaced without touching the others.
 */
async function radiusTokenMatches(header: string | undefined): Promise<boolean> {
  const given = /^Bearer (\S+)$/.exec(header?.trim() ?? '')?.[1] ?? '';
  const digests = radiusTokenDigests(await getSecret('RADIUS_API_SECRET'));
  // Every token is compared (no early exit), each in constant time.
  return digestMatches(given, digests);
}

/**
 * The in-country edges' token check, given by functions/edge/edge-auth.ts: only the edge rows'
 * handlers import it, so no other function carries it nor the store code it reads with, and an
 * edge row's function without it refuses every caller. It is told the route's path.
 */
type EdgeCheck = (authorization: string | undefined, path: string) => Promise<EdgePrincipal | undefined>;
let edgeCheck: EdgeCheck | undefined;
export const acceptEdgeTokens = (check: EdgeCheck): void => {
  edgeCheck = check;
};

/** The digests of the secret's tokens (`safeEqual`'s), split and hashed once per secret value. */
let tokenDigests: { secret: string; digests: Buffer[] } | undefined;
function radiusTokenDigests(secret: string): Buffer[] {
  if (tokenDigests?.secret !== secret) {
    const tokens = secret.split(/[\s,]+/).filter(Boolean);
    tokenDigests = { secret, digests: tokens.map(digestOf) };
  }
  return tokenDigests.digests;
}

/**
 * Checks a session token (the `Authorization` header) and answers its verified principal. Only
 * the handlers of session routes pass one (`sessionEndpoint`): the JWT library and the token
 * checks stay out of the other functions' bundles.
 */
export type SessionCheck = (authorization: string | undefined) => Promise<Principal>;

/** The caller of `route`, checked as its auth level demands, before anything else of the request is read. */
export async function authenticate(
  route: Route,
  headers: Record<string, string>,
  checkSession: SessionCheck | undefined,
): Promise<Principal | EdgePrincipal | undefined> {
  switch (route.auth) {
    case 'none':
      return undefined;
    // Each gateway signs its own way, over the raw body: its handler checks the signature
    // (functions/billing/gateways/) before anything reads the body or the table.
    case 'signature':
      return undefined;
    case 'webhook': {
      const expected = await getSecret('WEBHOOK_SECRET');
      const given = headers['x-provider-secret'] ?? '';
      if (!safeEqual(given, expected)) throw new AppError('ERR_UNAUTHENTICATED', 'Invalid provider secret');
      return undefined;
    }
    case 'radius':
      // The FreeRADIUS of the front's own task, by its bearer. Not a 401: FreeRADIUS reads 401
      // as "reject this user" and would blame the subscriber.
      if (!(await radiusTokenMatches(headers.authorization))) {
        throw new AppError('ERR_RADIUS_CREDENTIALS', 'Invalid RADIUS server credentials');
      }
      return undefined;
    case 'edge': {
      // An in-country edge, by its own token while active. Not a 401 either: the edge hands the
      // region's answers to its FreeRADIUS, where a 401 reads as a rejected subscriber.
      const edge = edgeCheck ? await edgeCheck(headers.authorization, route.path) : undefined;
      if (!edge) throw new AppError('ERR_RADIUS_CREDENTIALS', 'Invalid edge credentials');
      return edge;
    }
    case 'jwt':
    case 'reseller':
    case 'admin':
    case 'agent': {
      // The types make this unreachable (a session route's key is not an OpenRouteKey).
      if (!checkSession) throw new Error(`${route.method} ${route.path} needs sessionEndpoint`);
      const principal = await checkSession(headers.authorization);
      if (route.auth === 'admin' && principal.role !== 'admin')
        throw new AppError('ERR_FORBIDDEN', 'Admins only');
      // Allow-lists, never deny-lists: a role added later is refused until a level names it.
      if (route.auth === 'reseller' && principal.role !== 'reseller' && principal.role !== 'admin') {
        throw new AppError('ERR_FORBIDDEN', 'Resellers and admins only');
      }
      if (route.auth === 'agent' && principal.role === 'subscriber') {
        throw new AppError('ERR_FORBIDDEN', 'Agents, resellers and admins only');
      }
      return principal;
    }
  }
}
