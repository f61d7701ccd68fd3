import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod/mini';
import { type AuthLevel, type AuthOf, findRoute, type Route, type RouteKey } from '../routes.js';
import { safeEqual } from './compare.js';
import { AppError, type ErrorDetail, errorBody, toAppError } from './errors.js';
import { log, logger, metrics } from './log.js';
import { getSecret } from './secrets.js';
import {
  type AdminPrincipal,
  bearerToken,
  type OperatorPrincipal,
  type Principal,
  verifySession,
} from './tokens.js';

/** Largest request body accepted, in bytes (the local server enforces the same before parsing). */
export const MAX_BODY_BYTES = 64 * 1024;

export type Schema<T> = z.ZodMiniType<T>;

/** Who a route of each auth level is called by: a token's holder, or nobody in particular. */
export type PrincipalFor<A extends AuthLevel> = A extends 'jwt'
  ? Principal
  : A extends 'reseller'
    ? OperatorPrincipal
    : A extends 'admin'
      ? AdminPrincipal
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
}

interface EndpointSpec<B, Q, P> {
  body?: Schema<B>;
  query?: Schema<Q>;
  params?: Schema<P>;
  /** The success answer, for the OpenAPI document (not enforced at run time). */
  response?: { status: number; schema?: Schema<unknown>; contentType?: string };
  /** Other answers the handler itself returns (not errors), for the OpenAPI document. */
  also?: { status: number; schema: Schema<unknown>; description: string }[];
}

/** What the OpenAPI document is generated from: the schemas the handler validates with. */
export interface Contract {
  route: Route;
  body?: Schema<unknown>;
  query?: Schema<unknown>;
  params?: Schema<unknown>;
  response?: { status: number; schema?: Schema<unknown>; contentType?: string };
  also?: { status: number; schema: Schema<unknown>; description: string }[];
}

/** What the middlewares learnt about a request, handed to the handler on middy's context. */
interface Parsed {
  principal: Principal | undefined;
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
  return {
    statusCode: reply.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...reply.headers,
    },
    body: raw ? reply.raw : reply.body === undefined ? '' : JSON.stringify(reply.body),
  };
}

function issues(error: z.core.$ZodError, prefix: string): ErrorDetail[] {
  return error.issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter(Boolean).join('.'),
    message: i.message,
  }));
}

function parse<T>(schema: Schema<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('ERR_VALIDATION', `Invalid ${where}`, { details: issues(result.error, where) });
  }
  return result.data;
}

function normalizeHeaders(event: APIGatewayProxyEventV2): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  event.headers = out;
  return out;
}

function readJsonBody(event: APIGatewayProxyEventV2, headers: Record<string, string>): unknown {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
    throw new AppError('ERR_PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  const type = headers['content-type'] ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('ERR_VALIDATION', 'Request body is not valid JSON');
  }
}

/**
 * The RADIUS servers' bearer tokens: the secret holds one per server, separated by white space
 * or commas, so that one server's token can be replaced without touching the others.
 */
async function radiusTokenMatches(header: string | undefined): Promise<boolean> {
  const given = /^Bearer (\S+)$/.exec(header?.trim() ?? '')?.[1] ?? '';
  const tokens = (await getSecret('RADIUS_API_SECRET')).split(/[\s,]+/).filter(Boolean);
  // Every token is compared (no early exit), each in constant time.
  return tokens.map((t) => safeEqual(given, t)).includes(true);
}

async function authenticate(route: Route, headers: Record<string, string>): Promise<Principal | undefined> {
  switch (route.auth) {
    case 'none':
      return undefined;
    case 'webhook': {
      const expected = await getSecret('WEBHOOK_SECRET');
      const given = headers['x-provider-secret'] ?? '';
      if (!safeEqual(given, expected)) throw new AppError('ERR_UNAUTHENTICATED', 'Invalid provider secret');
      return undefined;
    }
    case 'radius':
      // Not a 401: FreeRADIUS reads 401 as "reject this user" and would blame the subscriber.
      if (!(await radiusTokenMatches(headers.authorization))) {
        throw new AppError('ERR_RADIUS_CREDENTIALS', 'Invalid RADIUS server credentials');
      }
      return undefined;
    case 'jwt':
    case 'reseller':
    case 'admin': {
      const principal = await verifySession(bearerToken(headers.authorization));
      if (route.auth === 'admin' && principal.role !== 'admin')
        throw new AppError('ERR_FORBIDDEN', 'Admins only');
      if (route.auth === 'reseller' && principal.role === 'subscriber') {
        throw new AppError('ERR_FORBIDDEN', 'Resellers and admins only');
      }
      return principal;
    }
  }
}

/**
 * Builds the Lambda handler of one route-table row. The middleware order is middy's: headers
 * normalised, auth, body parsed, input validated, then the handler; errors mapped last. The
 * auth level comes from the route table, so it is declared in one place only.
 */
export function endpoint<
  K extends RouteKey,
  B = undefined,
  Q = Record<string, string>,
  P = Record<string, string>,
>(
  key: K,
  spec: EndpointSpec<B, Q, P>,
  fn: (req: Request<B, Q, P, PrincipalFor<AuthOf<K>>>) => Promise<Reply>,
) {
  const route = findRoute(key);

  const prepare: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    before: async (request) => {
      const headers = normalizeHeaders(request.event);
      const principal = await authenticate(route, headers);
      // Auth runs before the body is read: an anonymous caller learns nothing about validation.
      const rawBody = spec.body ? readJsonBody(request.event, headers) : undefined;
      (request.context as EndpointContext).parsed = {
        principal,
        body: parse(spec.body, rawBody, 'body'),
        query: parse(spec.query, { ...request.event.queryStringParameters }, 'query'),
        params: parse(spec.params, { ...request.event.pathParameters }, 'path'),
      };
    },
  };

  // Flushes the business metrics of this invocation as EMF; most requests count none.
  const flushMetrics: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    after: async () => {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    },
    onError: async () => {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    },
  };

  const errors: middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = {
    onError: async (request) => {
      const appError = toAppError(request.error);
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
