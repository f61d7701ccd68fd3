import { type EndpointBuilder, routeHandler } from '../core/http.js';
import type { SessionRouteKey } from '../routes.js';
import { bearerToken, verifySession } from './tokens.js';

/**
 * Builds the Lambda handler of a route-table row whose callers hold a session token (the `jwt`,
 * `reseller` and `admin` levels): the bearer token is verified (signature, expiry, revocation)
 * before anything else, and the handler receives its principal, never undefined. Only these
 * handlers import this module, so only their bundles carry the JWT library.
 */
export const sessionEndpoint: EndpointBuilder<SessionRouteKey> = (key, spec, fn) =>
  routeHandler(key, spec, fn, (authorization) => verifySession(bearerToken(authorization)));
