// The Lambda handler of a route-table row: its middleware chain around the handler, and the reply it sends.

import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { type AuthOf, findRoute, type OpenRouteKey, type RouteKey } from '../routes.js';
import { authenticate, type PrincipalFor, type SessionCheck } from './caller.js';
import type { Contract, EndpointSpec } from './endpoint-spec.js';
import { AppError, errorBody, toAppError } from './errors.js';
import {
  normalizeHeaders,
  parse,
  readJsonBody,
  refuseBody,
  type Schema,
  unstorableNumber,
} from './http-request.js';
import { endInvocation, log, logger } from './log.js';
import type { EdgePrincipal, Principal } from './principal.js';

export { MAX_BODY_BYTES, type Schema } from './http-request.js';

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

/** The query schema of a route that declares none: no parameter at all. */
const NO_QUERY = z.strictObject({});

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
