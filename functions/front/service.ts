// The RADIUS front's service: the RADIUS routes on loopback beside FreeRADIUS, its routers held in memory.

import { endInvocation } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { compiled, type LambdaHandler, type RouteServer, serveRoutes } from '../core/route-server.js';
import { REFUSALS } from '../radius/attributes.js';
import { ROUTER_REFUSAL_MESSAGE } from '../radius/caller.js';
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
import { type Route, routes } from '../routes.js';

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

/**
 * Counts what FreeRADIUS got from a login or accounting call, by what it carries on the wire (a
 * status, a Reply-Message), whatever decided it: login calls, their refusals by reason (an
 * unknown code, a router that may not speak for the hotspot, the code's own limits) and the
 * calls that failed inside the service (FreeRADIUS refuses those logins and leaves those
 * reports unanswered). A front whose DynamoDB access or role broke refuses everyone while its
 * packets flow and its targets stay healthy: these counts page then (lib/observability.ts,
 * FrontRefusingLogins and FrontErrors), once a minute (the task's METRICS_FLUSH_S).
 */
export function counted(route: Pick<Route, 'path'>, handler: LambdaHandler): LambdaHandler {
  const login = /\/(authorize|post-auth)$/.test(route.path);
  if (!login && !route.path.endsWith('/accounting')) return handler;
  return async (event, context) => {
    countMetric(login ? 'FrontLoginCalls' : 'FrontAccountingCalls');
    let status = 500;
    let body: string | undefined;
    try {
      const result = await handler(event, context);
      status = result.statusCode ?? 200;
      body = typeof result.body === 'string' ? result.body : undefined;
      return result;
    } finally {
      if (status >= 500) countMetric(login ? 'FrontLoginErrors' : 'FrontAccountingErrors');
      else if (login) {
        const refusal = refusalOf(status, body);
        if (refusal) countMetric(refusal);
      }
      // Counted after the handler's own flush: flushed now (a no-op where counts are summed).
      await endInvocation();
    }
  };
}

/** A login call's refusal as FreeRADIUS reads it: authorize's 401, post-auth's refused login. */
function refusalOf(
  status: number,
  body: string | undefined,
): 'FrontRefusedUnknownCode' | 'FrontRefusedRouter' | 'FrontRefusedOther' | undefined {
  if (status !== 401 && !body?.includes('Hotspot-Login-Refused')) return undefined;
  let message: unknown;
  try {
    message = (JSON.parse(body ?? '{}') as Record<string, { value?: unknown }>)['reply:Reply-Message']?.value;
  } catch {
    message = undefined;
  }
  if (message === ROUTER_REFUSAL_MESSAGE) return 'FrontRefusedRouter';
  if (message === REFUSALS.unknown_code) return 'FrontRefusedUnknownCode';
  return 'FrontRefusedOther';
}

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
      return compiled(r, counted(r, handler));
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
