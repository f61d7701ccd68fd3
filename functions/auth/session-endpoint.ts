// The Lambda handler of a route whose callers hold a session token: the token checked before the route's handler runs.

import { toAppError } from '../core/errors.js';
import { type EndpointBuilder, type Reply, type Request, routeHandler } from '../core/http.js';
import { log } from '../core/log.js';
import type { Principal } from '../core/principal.js';
import { findRoute, type SessionRouteKey } from '../routes.js';
import { recordActivity } from '../store/activity.js';
import { bearerToken, verifySession } from './tokens.js';

/**
 * The body fields an activity entry keeps, so that the console writes it as a sentence ("Chez
 * Awa a généré 30 codes Pass Jour"): counts, amounts, a forfait, a hotspot, the reseller an
 * operator acted for, a name given to what was made. Numbers and short texts only; never a
 * phone number, a secret or free text beyond a name.
 */
const FACTS = [
  'n',
  'count',
  'forfait_id',
  'float_fcfa',
  'amount_fcfa',
  'price_fcfa',
  'name',
  'nas_id',
  'reseller_id',
];
function activityFacts(body: unknown): Record<string, string | number> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const out: Record<string, string | number> = {};
  for (const key of FACTS) {
    const v = (body as Record<string, unknown>)[key];
    if (typeof v === 'number' || (typeof v === 'string' && v.length <= 64)) out[key] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Records a write of an operator or a reseller in the activity log (functions/store/activity.ts),
 * whatever its outcome: one PutItem after the handler. Subscribers' writes are the platform's
 * volume and are not logged. A failed record is logged, never the caller's failure.
 */
async function recordWrite(
  key: string,
  req: Request<unknown, unknown, unknown>,
  status: number,
  told?: Record<string, string | number>,
): Promise<void> {
  const who = req.principal as Principal | undefined;
  if (!who || who.role === 'subscriber') return;
  const asked = activityFacts(req.body);
  const facts = asked || told ? { ...asked, ...told } : undefined;
  try {
    await recordActivity({
      at: new Date().toISOString(),
      id: req.requestId,
      actor_sub: who.sub,
      actor_ref: who.ref,
      role: who.role,
      ...(who.role === 'reseller' || who.role === 'agent' ? { reseller_id: who.resellerId } : {}),
      action: key,
      target: req.event.rawPath ?? '',
      status,
      ip: req.event.requestContext?.http?.sourceIp ?? '',
      ...(facts ? { facts } : {}),
    });
  } catch (error) {
    log.error('activity not recorded', {
      route: key,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}

/**
 * Builds the Lambda handler of a route-table row whose callers hold a session token (the `jwt`,
 * `reseller` and `admin` levels): the bearer token is verified (signature, expiry, revocation)
 * before anything else, and the handler receives its principal, never undefined. Only these
 * handlers import this module, so only their bundles carry the JWT library. Every non-GET route
 * is a write, and operators' writes are recorded in the activity log here, in one place (their
 * rows all have `table: 'write'`, test/unit/session-endpoint.test.ts).
 */
export const sessionEndpoint: EndpointBuilder<SessionRouteKey> = (key, spec, fn) => {
  const logged: typeof fn =
    findRoute(key).method === 'GET'
      ? fn
      : async (req) => {
          let reply: Reply;
          try {
            reply = await fn(req);
          } catch (error) {
            await recordWrite(key, req as Request<unknown, unknown, unknown>, toAppError(error).status);
            throw error;
          }
          const { facts, ...answer } = reply;
          await recordWrite(key, req as Request<unknown, unknown, unknown>, reply.status, facts);
          return answer;
        };
  return routeHandler(key, spec, logged, (authorization) => verifySession(bearerToken(authorization)));
};
