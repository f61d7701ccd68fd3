import type { SecretName } from './core/secrets.js';

/**
 * Who may call a route (DESIGN §4). `reseller` means the owning reseller or an admin; the
 * handler checks ownership of the resource itself. `webhook` is the aggregator's shared secret.
 */
export type AuthLevel = 'none' | 'jwt' | 'reseller' | 'admin' | 'webhook';

/** What a route's function may touch; the CDK stack derives its IAM grants from this. */
export interface RouteAccess {
  table: 'none' | 'read' | 'write';
  /** `sms`: publish SMS through SNS (OTP only). `ops`: publish to the operations topic. */
  sns?: 'sms' | 'ops';
  secrets?: SecretName[];
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway path syntax: `{name}` for a path parameter. */
  path: string;
  /** Module under `functions/` (no extension) that exports `handler`. */
  handler: string;
  auth: AuthLevel;
  access: RouteAccess;
  /** `function-url`: its own Lambda function URL in AWS instead of an API Gateway route. */
  expose?: 'api' | 'function-url';
  summary: string;
}

export type RouteKey = `${Route['method']} ${string}`;

/** THE route table: the CDK stack and the local server both loop over it. */
export const routes: readonly Route[] = [
  // ---- auth (spec §4.1) ----
  {
    method: 'POST',
    path: '/api/v1/auth/otp/request',
    handler: 'auth/otp-request',
    auth: 'none',
    access: { table: 'write', sns: 'sms', secrets: ['OTP_PEPPER'] },
    summary: 'Send a one-time password by SMS',
  },
  {
    method: 'POST',
    path: '/api/v1/auth/otp/verify',
    handler: 'auth/otp-verify',
    auth: 'none',
    access: { table: 'write', secrets: ['OTP_PEPPER', 'JWT_SECRET'] },
    summary: 'Exchange a one-time password for a session token',
  },
  {
    method: 'GET',
    path: '/api/v1/auth/session',
    handler: 'auth/session',
    auth: 'jwt',
    access: { table: 'none' },
    summary: 'Validate the session token',
  },
  // ---- billing (spec §4.2) ----
  {
    method: 'GET',
    path: '/api/v1/forfaits',
    handler: 'billing/forfaits-list',
    auth: 'none',
    access: { table: 'read' },
    summary: 'List the forfaits on sale',
  },
  // ---- network (spec §4.3) ----
  // ---- monitoring (spec §4.4) ----
];

export const routeKey = (r: Pick<Route, 'method' | 'path'>): RouteKey => `${r.method} ${r.path}`;

/** The row of a route; handlers look themselves up so that auth is declared only here. */
export function findRoute(key: RouteKey): Route {
  const route = routes.find((r) => routeKey(r) === key);
  if (!route) throw new Error(`No route ${key} in the route table`);
  return route;
}

/** The secrets a route's function reads: its own plus the JWT key whenever it checks tokens. */
export function routeSecrets(route: Route): SecretName[] {
  const set = new Set<SecretName>(route.access.secrets ?? []);
  if (route.auth === 'jwt' || route.auth === 'reseller' || route.auth === 'admin') set.add('JWT_SECRET');
  if (route.auth === 'webhook') set.add('WEBHOOK_SECRET');
  return [...set];
}
