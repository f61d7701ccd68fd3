import type { AuthOf, SessionRouteKey } from '../routes.js';
import { type EndpointSpec, type PrincipalFor, type Reply, type Request, routeHandler } from './http.js';
import { bearerToken, verifySession } from './tokens.js';

/**
 * Builds the Lambda handler of a route-table row whose callers hold a session token (the `jwt`,
 * `reseller` and `admin` levels): the bearer token is verified (signature, expiry, revocation)
 * before anything else, and the handler receives its principal, never undefined. Only these
 * handlers import this module, so only their bundles carry the JWT library.
 */
export function sessionEndpoint<
  K extends SessionRouteKey,
  B = undefined,
  Q = Record<string, string>,
  P = Record<string, string>,
>(
  key: K,
  spec: EndpointSpec<B, Q, P>,
  fn: (req: Request<B, Q, P, PrincipalFor<AuthOf<K>>>) => Promise<Reply>,
) {
  return routeHandler(key, spec, fn, (authorization) => verifySession(bearerToken(authorization)));
}
