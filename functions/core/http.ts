import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import {
  type AuthLevel,
  type AuthOf,
  findRoute,
  type OpenRouteKey,
  type Route,
  type RouteKey,
  routeSecrets,
} from '../routes.js';
import { digestMatches, digestOf, safeEqual } from './compare.js';
import { AppError, ERROR_STATUS, type ErrorCode, errorBody, toAppError } from './errors.js';
import {
  normalizeHeaders,
  parse,
  readJsonBody,
  refuseBody,
  type Schema,
  unstorableNumber,
} from './http-request.js';
import { endInvocation, log, logger } from './log.js';
import type {
  AdminPrincipal,
  AgentScopePrincipal,
  EdgePrincipal,
  OperatorPrincipal,
  Principal,
} from './principal.js';
import { getSecret } from './secrets.js';

export { MAX_BODY_BYTES, type Schema } from './http-request.js';

/** Who a route of each auth level is called by: a token's holder, or nobody in particular. */
type PrincipalFor<A extends AuthLevel> = A extends 'jwt'
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

export interface Request<B, Q, P, Who = Principal | undefined> {
  body: B;
  query: Q;
  params: P;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The verified caller: never undefined on a route whose auth level needs a token. */
  principal: Who;
  requestId: string;
  event: APIGatewayProxyEventV2;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body (text/html, text/csv); `body` is ignored when set. */
  raw?: string;
  /** Raw bytes (an image, a gzipped asset), sent base64-encoded as API Gateway wants them; `raw` and `body` ignored. */
  bytes?: Buffer;
  /** What a write did, for the activity log's sentence (an undo names what it undid); never sent. */
  facts?: Record<string, string | number>;
}

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
  /** The query's schema; without one, any query parameter is a 400 (`z.record(...)`: an open set). */
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

/** The query schema of a route that declares none: no parameter at all. */
const NO_QUERY = z.strictObject({});

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

/** What the middlewares learnt about a request, handed to the handler on middy's context. */
interface Parsed {
  principal: Principal | EdgePrincipal | undefined;
  body: unknown;
  query: unknown;
  params: unknown;
}
type EndpointContext = Context & { parsed?: Parsed };

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  body,
  headers,
});

function toResponse(reply: Reply): APIGatewayProxyStructuredResultV2 {
  const raw = reply.raw !== undefined;
  const bytes = reply.bytes ? { body: reply.bytes.toString('base64'), isBase64Encoded: true } : {};
  return {
    statusCode: reply.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...reply.headers,
    },
    body: raw ? reply.raw : reply.body === undefined ? '' : JSON.stringify(reply.body),
    ...bytes,
  };
}

/** The RADIUS servers' bearer tokens, one per server (white space or commas between): one replaced alone. */
async function radiusTokenMatches(header: string | undefined): Promise<boolean> {
  const given = /^Bearer (\S+)$/.exec(header?.trim() ?? '')?.[1] ?? '';
  const digests = radiusTokenDigests(await getSecret('RADIUS_API_SECRET'));
  // Every token is compared (no early exit), each in constant time.
  return digestMatches(given, digests);
}

/**
 * The in-country edges' token check, given by functions/edge/edge-auth.ts: only the edge rows'
 * handlers import it, so no other function carries it nor the store code it reads with, and an
 * edge row's function without it refuses every caller.
 */
let edgeCheck: ((authorization: string | undefined) => Promise<EdgePrincipal | undefined>) | undefined;
export const acceptEdgeTokens = (
  check: (authorization: string | undefined) => Promise<EdgePrincipal | undefined>,
): void => {
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

async function authenticate(
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
      const edge = edgeCheck ? await edgeCheck(headers.authorization) : undefined;
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

/** The function a route's handler module gives: its request typed by the route's auth level. */
export type RouteFn<K extends RouteKey, B, Q, P> = (
  req: Request<B, Q, P, PrincipalFor<AuthOf<K>>>,
) => Promise<Reply>;

/** Builds the Lambda handler of a row of the route table whose key is one of `Keys`. */
export type EndpointBuilder<Keys extends RouteKey> = <
  K extends Keys,
  B = undefined,
  Q = Record<string, string>,
  P = Record<string, string>,
>(
  key: K,
  spec: EndpointSpec<B, Q, P>,
  fn: RouteFn<K, B, Q, P>,
) => ReturnType<typeof routeHandler>;

/**
 * Builds the Lambda handler of a route-table row called without a session token (public, the
 * aggregator's webhook, FreeRADIUS). A session route's key is a type error here: its handler
 * uses `sessionEndpoint` (functions/auth/session-endpoint.ts), which checks the token.
 */
export const endpoint: EndpointBuilder<OpenRouteKey> = (key, spec, fn) =>
  routeHandler(key, spec, fn, undefined);

/**
 * Builds the Lambda handler of one route-table row. The middleware order is middy's: headers
 * normalised, auth, body parsed, input validated, then the handler; errors mapped last. The
 * auth level comes from the route table, so it is declared in one place only.
 */
export function routeHandler<K extends RouteKey, B, Q, P>(
  key: K,
  spec: EndpointSpec<B, Q, P>,
  fn: RouteFn<K, B, Q, P>,
  checkSession: SessionCheck | undefined,
) {
  const route = findRoute(key);

  const prepare: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    before: async (request) => {
      const headers = normalizeHeaders(request.event);
      const principal = await authenticate(route, headers, checkSession);
      // Auth runs before the body is read: an anonymous caller learns nothing about validation.
      const rawBody = spec.body ? readJsonBody(request.event, headers) : undefined;
      // A route without a body schema acts on no body: one sent anyway (other than `{}`, which
      // some clients send by default) is refused rather than silently ignored. A gateway's
      // notification reads its raw body itself (its signature is over it).
      if (!spec.body && route.auth !== 'signature') refuseBody(request.event);
      (request.context as EndpointContext).parsed = {
        principal,
        body: parse(spec.body, rawBody, 'body'),
        query: parse(
          spec.query ?? (NO_QUERY as unknown as Schema<Q>),
          { ...request.event.queryStringParameters },
          'query',
        ),
        params: parse(spec.params, { ...request.event.pathParameters }, 'path'),
      };
    },
  };

  // Flushes what this invocation buffered (business metrics as EMF; most requests count none).
  const flushMetrics: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    after: async () => endInvocation(),
    onError: async () => endInvocation(),
  };

  const errors: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    onError: async (request) => {
      const appError = unstorableNumber(request.error)
        ? new AppError('ERR_VALIDATION', 'A number in the request cannot be stored: too small or too large')
        : toAppError(request.error);
      if (appError.status >= 500) {
        log.error('request failed', {
          route: key,
          requestId: request.context?.awsRequestId,
          error:
            request.error instanceof Error ? `${request.error.name}: ${request.error.message}` : 'unknown',
        });
      }
      request.response = toResponse({
        status: appError.status,
        body: errorBody(appError),
        ...(appError.headers ? { headers: appError.headers } : {}),
      });
    },
  };

  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(flushMetrics)
    .use(errors)
    .use(prepare)
    .handler(async (event: APIGatewayProxyEventV2, context: EndpointContext) => {
      const parsed = context.parsed;
      if (!parsed) throw new Error('request not parsed');
      const reply = await fn({
        body: parsed.body as B,
        query: parsed.query as Q,
        params: parsed.params as P,
        headers: event.headers as Record<string, string>,
        // The auth middleware proved the principal this route's level requires.
        principal: parsed.principal as PrincipalFor<AuthOf<K>>,
        requestId: context?.awsRequestId ?? event.requestContext?.requestId ?? '',
        event,
      });
      return toResponse(reply);
    });
  const contract: Contract = { route, ...(spec as Omit<Contract, 'route'>) };
  return Object.assign(handler, { contract });
}
