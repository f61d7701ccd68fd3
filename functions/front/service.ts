// The RADIUS front's service: the RADIUS routes on loopback beside FreeRADIUS, its routers held in memory.

import { compiled, type LambdaHandler, type RouteServer, serveRoutes } from '../core/route-server.js';
import { handler as accounting } from '../radius/radius-accounting.js';
import { handler as authorize } from '../radius/radius-authorize.js';
import { handler as client } from '../radius/radius-client.js';
import { handler as disconnectResult } from '../radius/radius-disconnect-result.js';
import { handler as disconnectsClaim } from '../radius/radius-disconnects-claim.js';
import { handler as postAuth } from '../radius/radius-post-auth.js';
import {
  DIRECTORY_DEFAULTS,
  type DirectorySettings,
  type RouterDirectory,
  startRouterDirectory,
} from '../routers/directory.js';
import { routes } from '../routes.js';

/**
 * The RADIUS front's service: the data plane of the route table (`plane: 'front'`: authorize,
 * post-auth, accounting, the client lookup, the Disconnect claim and result), served beside
 * FreeRADIUS in the front's task on loopback, by the same handler modules and the same dispatch
 * (functions/core/route-server.ts) as the local API server. FreeRADIUS's rlm_rest and the
 * Disconnect relay call it; it reads and writes DynamoDB with the task's role (through the
 * VPC's gateway endpoint in AWS) and holds the routers in memory (functions/routers/directory.ts).
 *
 * `GET /health` answers 200 once the routers are loaded (503 before): run.sh starts FreeRADIUS
 * only then. Started by functions/front/main.ts (its own process, as run.sh runs it), or in
 * process by tests and the bench.
 */

/** The handler of each front row, imported statically: the service is one bundle. */
const HANDLERS: Record<string, LambdaHandler> = {
  'radius/radius-authorize': authorize,
  'radius/radius-post-auth': postAuth,
  'radius/radius-accounting': accounting,
  'radius/radius-client': client,
  'radius/radius-disconnects-claim': disconnectsClaim,
  'radius/radius-disconnect-result': disconnectResult,
};

interface FrontService extends RouteServer {
  routers: RouterDirectory;
}

/** The directory's timings from the environment (ROUTERS_REFRESH_MS, ...), else the defaults. */
export function directorySettings(env: NodeJS.ProcessEnv = process.env): DirectorySettings {
  const ms = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  return {
    refreshMs: ms('ROUTERS_REFRESH_MS', DIRECTORY_DEFAULTS.refreshMs),
    marginMs: ms('ROUTERS_MARGIN_MS', DIRECTORY_DEFAULTS.marginMs),
    fullMs: ms('ROUTERS_FULL_MS', DIRECTORY_DEFAULTS.fullMs),
    negativeMs: ms('ROUTERS_NEGATIVE_MS', DIRECTORY_DEFAULTS.negativeMs),
  };
}

export async function startFrontService(
  options: { port?: number; host?: string; directory?: DirectorySettings } = {},
): Promise<FrontService> {
  const rows = routes
    .filter((r) => r.plane === 'front')
    .map((r) => {
      const handler = HANDLERS[r.handler];
      if (!handler) throw new Error(`the RADIUS front's service has no handler for ${r.handler}`);
      return compiled(r, handler);
    });
  const routers = startRouterDirectory(options.directory ?? directorySettings());
  let loaded = false;
  void routers.ready.then(() => {
    loaded = true;
  });
  const server = await serveRoutes(rows, {
    // Loopback only: the routers never reach it, FreeRADIUS and the relay in the task do.
    host: options.host ?? '127.0.0.1',
    ...(options.port !== undefined ? { port: options.port } : {}),
    name: 'radius front service',
    before: async (req, res, _body, url) => {
      if (url.pathname !== '/health') return false;
      res.writeHead(loaded ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ routers: loaded ? routers.size() : null }));
      void req;
      return true;
    },
  });
  return {
    ...server,
    routers,
    close: async () => {
      routers.stop();
      await server.close();
    },
  };
}
