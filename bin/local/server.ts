// The local server: the route table's rows, jobs and pages served over HTTP as API Gateway would.

import { MAX_BODY_BYTES } from '../../functions/core/http.js';
import {
  type CompiledRoute,
  compiled,
  type LambdaHandler,
  type RouteServer,
  sendJson,
  serveRoutes,
} from '../../functions/core/route-server.js';
import { type Route, routes } from '../../functions/routes.js';
import type { LocalPage } from './local-page.js';

/** The rows API Gateway serves in AWS: all but the RADIUS data plane's (`plane: 'front'`). */
export const apiRoutes = (): Route[] => routes.filter((r) => r.plane !== 'front');

/** Loads the handler module of each row given (fails fast on a missing one). */
export async function loadRoutes(rows: readonly Route[] = apiRoutes()): Promise<CompiledRoute[]> {
  return Promise.all(
    rows.map(async (route) => {
      const mod = (await import(new URL(`../../functions/${route.handler}.ts`, import.meta.url).href)) as {
        handler?: LambdaHandler;
      };
      if (typeof mod.handler !== 'function') throw new Error(`${route.handler} exports no handler`);
      return compiled(route, mod.handler);
    }),
  );
}

export type LocalServer = RouteServer;

/**
 * The API as API Gateway serves it in AWS: every route-table row but the RADIUS data plane's
 * (those are the RADIUS front's own service, functions/front/service.ts, which `npm start` runs
 * beside FreeRADIUS as the front's task does), on one port, each handler invoked with the event
 * API Gateway would send, and the local pages (docs, sandbox) beside them. HEAD and OPTIONS get
 * 405 too: no CORS, see docs/decisions.md.
 */
export async function startServer(
  options: {
    port?: number;
    host?: string;
    pages?: LocalPage[];
    /**
     * Tests only: the caller's address is the first `x-forwarded-for` entry, so that a test can
     * play many subscribers behind one public address (every real request here is loopback).
     * Never on for `npm start`: anyone could then choose the address they are budgeted as.
     */
    trustForwardedFor?: boolean;
  } = {},
): Promise<LocalServer> {
  // The pages beside the routes (docs, sandbox) are the caller's choice: bin/local/pages.ts lists them.
  const pages = options.pages ?? [];
  return serveRoutes(await loadRoutes(), {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.trustForwardedFor ? { trustForwardedFor: true } : {}),
    before: async (req, res, read, url) => {
      const method = req.method ?? 'GET';
      const page = pages.find(
        (p) =>
          p.method === method &&
          (p.path.endsWith('/') ? url.pathname.startsWith(p.path) : url.pathname === p.path),
      );
      if (!page) return false;
      if (read === undefined)
        sendJson(res, 413, 'ERR_PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
      else await page.handle(req, res, read, url);
      return true;
    },
  });
}
