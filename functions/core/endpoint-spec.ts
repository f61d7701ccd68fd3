// What a handler declares of its route beside its code: schemas, answers and errors, the OpenAPI document's source.

import { type Route, routeSecrets } from '../routes.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import type { Schema } from './http-request.js';

/** An answer other than the success and the errors: a 304, a refusal with its own body, a page. */
export interface OtherAnswer {
  status: number;
  description: string;
  /** A JSON body's schema; none for an empty body (304) or a non-JSON one. */
  schema?: Schema<unknown>;
  /** The media type of a body that is not JSON (`text/html`). */
  contentType?: string;
}

export interface EndpointSpec<B, Q, P> {
  body?: Schema<B>;
  /**
   * The query string's schema. Without one, the route takes no query parameter: any is a 400
   * (`z.record(...)` for a route that passes an open set on, as the captive portal does).
   */
  query?: Schema<Q>;
  params?: Schema<P>;
  /** The success answer, for the OpenAPI document (not enforced at run time). */
  response?: { status: number; schema?: Schema<unknown>; contentType?: string };
  /** The most common success answer, a 200 with this JSON schema: `response` written short. */
  ok?: Schema<unknown>;
  /** A 201 with this JSON schema: `response` written short. */
  created?: Schema<unknown>;
  /** Other answers the handler itself returns (not errors), for the OpenAPI document. */
  also?: OtherAnswer[];
  /**
   * The error codes the handler (and what it calls) may raise itself, beyond those the route
   * row implies (auth, validation, body, dependencies: see `routeErrors`). The OpenAPI document
   * lists every status with its codes, and the HTTP tests fail on a code it does not list.
   */
  errors?: readonly ErrorCode[];
}

/** The success answer a spec declares, in whichever of its three forms (a 200 without a body when none). */
export function successOf(
  spec: EndpointSpec<unknown, unknown, unknown>,
): NonNullable<EndpointSpec<unknown, unknown, unknown>['response']> {
  const forms = [spec.ok, spec.created, spec.response].filter((f) => f !== undefined);
  if (forms.length > 1) throw new Error('a spec declares its success answer once: ok, created or response');
  if (spec.ok) return { status: 200, schema: spec.ok };
  if (spec.created) return { status: 201, schema: spec.created };
  return spec.response ?? { status: 200 };
}

/** What the OpenAPI document is generated from: the handler's spec (the schemas it validates with) and its row. */
export type Contract = EndpointSpec<unknown, unknown, unknown> & { route: Route };

/**
 * Every error code a route can answer, by status: those its row implies, and those its handler
 * declares (`errors`). Implied: `ERR_INTERNAL` always; `ERR_VALIDATION` (every route validates
 * its query string at least); 413 on a POST or PUT, 415 with a body schema; a token's 401 and, on the `reseller` and
 * `admin` levels, 403; the aggregator's 401; a RADIUS server's 502; and 503 for a route that
 * touches the table, SNS or a secret.
 */
export function routeErrors(
  route: Route,
  contract: Pick<Contract, 'body' | 'errors'>,
): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>(['ERR_INTERNAL', 'ERR_VALIDATION']);
  // A POST or PUT may carry a body (a schema's, or a raw one a handler checks itself).
  if (contract.body || route.method === 'POST' || route.method === 'PUT') codes.add('ERR_PAYLOAD_TOO_LARGE');
  if (contract.body) codes.add('ERR_UNSUPPORTED_MEDIA_TYPE');
  if (
    route.auth === 'jwt' ||
    route.auth === 'reseller' ||
    route.auth === 'admin' ||
    route.auth === 'agent' ||
    route.auth === 'webhook'
  )
    codes.add('ERR_UNAUTHENTICATED');
  if (route.auth === 'reseller' || route.auth === 'admin' || route.auth === 'agent')
    codes.add('ERR_FORBIDDEN');
  if (route.auth === 'radius' || route.auth === 'edge') codes.add('ERR_RADIUS_CREDENTIALS');
  if (route.auth === 'signature') codes.add('ERR_SIGNATURE_INVALID');
  if (
    route.access.table !== 'none' ||
    route.access.sns ||
    route.access.payments ||
    routeSecrets(route).length > 0
  )
    codes.add('ERR_UNAVAILABLE');
  for (const code of contract.errors ?? []) codes.add(code);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    if (!codes.has(code)) continue;
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
