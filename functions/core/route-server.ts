// Route-table rows served over plain HTTP, each handler called with the event API Gateway would send (local mode, the front, the edge).

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { type Route, routeKey } from '../routes.js';
import { MAX_BODY_BYTES } from './http.js';

/**
 * Route-table rows served over plain HTTP, each handler invoked with the event API Gateway
 * would send: the one dispatch of the local API server (bin/local/server.ts, the rows API
 * Gateway serves in AWS) and of the RADIUS front's service (functions/front/service.ts, the
 * rows of `plane: 'front'`, which FreeRADIUS calls over loopback in its task).
 */

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  handler: LambdaHandler;
  /** The Lambda function's name in the invocation context (local-<handler path>). */
  functionName: string;
  /** The route may read a body (POST and PUT: with a schema, or raw as a signed notification). */
  takesBody: boolean;
}

function compile(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((part) => {
      const m = /^\{(\w+)\}$/.exec(part);
      if (!m?.[1]) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}$`), names };
}

/** A row with its handler, ready to serve. */
export function compiled(route: Route, handler: LambdaHandler): CompiledRoute {
  const takesBody = route.method === 'POST' || route.method === 'PUT';
  const functionName = `local-${route.handler.replace(/\W/g, '-')}`;
  return { route, ...compile(route.path), handler, takesBody, functionName };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(JSON.stringify({ error: { code, message } }));
}

/** A path segment decoded as API Gateway hands it over; undefined for a malformed %-escape. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Reads the body, refusing past the limit without buffering the rest. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES;
    if (tooLarge) {
      req.resume();
      req.on('end', () => resolve(undefined));
      return;
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The API Gateway HTTP API (payload v2) event for a request, as AWS would build it. */
export function toEvent(
  req: IncomingMessage,
  url: URL,
  body: string,
  route: Route,
  params: Record<string, string>,
  /** Take the client address from `x-forwarded-for` (tests that play callers behind one NAT). */
  trustForwardedFor = false,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const now = Date.now();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(url.search ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp:
          (trustForwardedFor ? headers['x-forwarded-for']?.split(',')[0]?.trim() : undefined) ??
          req.socket.remoteAddress ??
          '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: routeKey(route),
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(body ? { body } : {}),
    isBase64Encoded: false,
  };
}

function lambdaContext(functionName: string, requestId: string): Context {
  return {
    awsRequestId: requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:local',
    memoryLimitInMB: '256',
    logGroupName: 'local',
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface RouteServerOptions {
  port?: number;
  host?: string;
  /**
   * Answers a request before the rows are looked at (the local host's pages, the service's
   * health check): true when it did. `body` is undefined for a body over the limit.
   */
  before?: (
    req: IncomingMessage,
    res: ServerResponse,
    body: string | undefined,
    url: URL,
  ) => Promise<boolean>;
  /** Tests only: the caller's address is the first `x-forwarded-for` entry (see bin/local/server.ts). */
  trustForwardedFor?: boolean;
  /** What a failure is logged as. */
  name?: string;
}

export interface RouteServer {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

/**
 * Serves the rows given on one port. Unknown paths answer 404, a known path with another method
 * 405 with an `Allow` header, a malformed %-escape in a path parameter 400, a body over 64 KB on
 * a route that reads one 413: all in the API's JSON error shape. (In AWS, API Gateway answers an
 * unrouted path or method itself, before any function.)
 */
export async function serveRoutes(
  rows: CompiledRoute[],
  options: RouteServerOptions = {},
): Promise<RouteServer> {
  // The rows a path without parameters can match, in table order (a parameter's row too when
  // its pattern takes the path): looked up, not tried one by one against all the rows. The same
  // rows in the same order: the same answer.
  const ofStaticPath = new Map<string, CompiledRoute[]>();
  for (const c of rows) {
    if (c.names.length > 0 || ofStaticPath.has(c.route.path)) continue;
    ofStaticPath.set(
      c.route.path,
      rows.filter((other) => other.pattern.test(c.route.path)),
    );
  }

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      const read = await readBody(req);
      const tooLarge = () =>
        sendJson(res, 413, 'ERR_PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
      if (options.before && (await options.before(req, res, read, url))) return;
      const body = read ?? '';

      const allowed = new Set<string>();
      for (const c of ofStaticPath.get(url.pathname) ?? rows) {
        const m = c.pattern.exec(url.pathname);
        if (!m) continue;
        allowed.add(c.route.method);
        if (c.route.method !== method) continue;
        // A route that reads no body ignores one, as its function in AWS would.
        if (read === undefined && c.takesBody) return tooLarge();
        const params: Record<string, string> = {};
        for (const [i, name] of c.names.entries()) {
          const value = decodeSegment(m[i + 1] ?? '');
          if (value === undefined) {
            return sendJson(res, 400, 'ERR_VALIDATION', `Path parameter ${name} has a malformed %-escape`);
          }
          params[name] = value;
        }
        const event = toEvent(req, url, c.takesBody ? body : '', c.route, params, options.trustForwardedFor);
        const result = await c.handler(event, lambdaContext(c.functionName, event.requestContext.requestId));
        res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
        res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
        return;
      }
      if (allowed.size > 0) {
        return sendJson(res, 405, 'ERR_METHOD_NOT_ALLOWED', `${method} is not allowed on this path`, {
          allow: [...allowed].sort().join(', '),
        });
      }
      return sendJson(res, 404, 'ERR_NOT_FOUND', `No route for ${method} ${url.pathname}`);
    } catch (error) {
      process.stderr.write(`${options.name ?? 'local server'}: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent) sendJson(res, 500, 'ERR_INTERNAL', 'Internal error');
      else res.end();
    }
  });

  // Longer than any client's keep-alive (undici's 4 s, FreeRADIUS's idle_timeout 4 s): the
  // client always closes an idle connection first, so a request never races the server's close.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${options.host === '0.0.0.0' ? 'localhost' : (options.host ?? '127.0.0.1')}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
