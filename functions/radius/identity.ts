// The router a RADIUS request comes from, as FreeRADIUS authenticated it, judged once and held in memory.

import { log } from '../core/log.js';
import { routerDirectory } from '../routers/directory.js';
import { batchGet } from '../store/entity.js';
import { Nas, type NasRecord } from '../store/nas.js';
import { Router, type RouterRecord } from '../store/routers.js';
import { radiusSettings } from './settings.js';

/**
 * The router a RADIUS request comes from, as FreeRADIUS authenticated it (never as the packet
 * says): `Hotspot-Router-Id` is the dynamic client's shortname (UDP: the router registered at
 * the packet's source address) or the CN of its RadSec client certificate, with
 * `Hotspot-Router-Cert-Serial`. FreeRADIUS sets both with `:=` on every request; numbers above
 * 255 cannot travel in a packet, so a router cannot forge them.
 *
 * The request is the router's to make only if the router is active, its credentials are the
 * current ones (over RadSec, the serial of the last certificate issued to it), the
 * NAS-Identifier it claims is one of its NAS ids, and that NAS id is its reseller's now: a NAS id
 * released and allocated again belongs to its new holder, and the previous holder's router no
 * longer speaks for it even if its list still names it (a release revokes such routers too:
 * functions/network/vlans.ts).
 */
export type RouterRefusal =
  | 'unknown_router'
  | 'router_revoked'
  | 'stale_certificate'
  | 'foreign_nas_id'
  /** Forwarded by an in-country edge for a router of a reseller it does not serve. */
  | 'outside_edge';

/** The text a refused login shows (French, fixed, as the other refusals). */
export const ROUTER_REFUSAL_MESSAGE = 'Routeur non autorisé pour ce hotspot';

export function routerRefusal(
  router: RouterRecord | undefined,
  claim: { certSerial?: string | undefined; nasId: string },
  /** The claimed NAS id's record as read now (undefined: no such NAS). */
  nas: Pick<NasRecord, 'reseller_id'> | undefined,
): RouterRefusal | undefined {
  if (!router) return 'unknown_router';
  if (router.status !== 'active') return 'router_revoked';
  if (router.transport === 'radsec') {
    if (!claim.certSerial || claim.certSerial.toLowerCase() !== router.cert_serial)
      return 'stale_certificate';
  } else if (claim.certSerial) {
    // A UDP router's id never comes with a certificate: something else named it.
    return 'stale_certificate';
  }
  if (!router.nas_ids.includes(claim.nasId)) return 'foreign_nas_id';
  if (nas?.reseller_id !== router.reseller_id) return 'foreign_nas_id';
  return undefined;
}

/**
 * The router a request names and the NAS it claims, to be read (with the request's other reads,
 * in one BatchGetItem where the caller can: `reads`) and judged by `judge`. `id` is undefined
 * for an empty or malformed id: no router's, nothing to read.
 */
export interface RouterOfRequest {
  id: string | undefined;
  /** The NAS-Identifier claimed, when it can be a key (1 to 64 characters). */
  nasId: string | undefined;
  judge: (
    router: RouterRecord | undefined,
    nas: NasRecord | undefined,
  ) => { router: RouterRecord } | { refused: RouterRefusal };
  /**
   * The router as read, once `judge` accepted it: the request is its own traffic, which records
   * when it was last heard (functions/routers/heard.ts) without reading it again.
   */
  accepted?: RouterRecord;
}

export function routerOfRequest(
  attrs: Map<string, string>,
  route: 'authorize' | 'post-auth' | 'accounting',
  /** The resellers of the in-country edge that forwarded the request (functions/edge/edge-auth.ts). */
  edgeResellers?: readonly string[],
): RouterOfRequest {
  const routerId = attrs.get('Hotspot-Router-Id') ?? '';
  const nasId = attrs.get('NAS-Identifier') ?? '';
  const of: RouterOfRequest = {
    id: /^[a-z0-9_]{1,64}$/.test(routerId) ? routerId : undefined,
    nasId: nasId && nasId.length <= 64 ? nasId : undefined,
    judge: (router, nas) => {
      const refused =
        routerRefusal(router, { certSerial: attrs.get('Hotspot-Router-Cert-Serial'), nasId }, nas) ??
        (edgeResellers && !edgeResellers.includes(router?.reseller_id ?? '') ? 'outside_edge' : undefined);
      if (refused) {
        log.warn('radius request refused: router', {
          route,
          reason: refused,
          routerId,
          nasId,
          source: attrs.get('Hotspot-NAS-IP'),
        });
        return { refused };
      }
      of.accepted = router as RouterRecord;
      return { router: of.accepted };
    },
  };
  return of;
}

/**
 * A refusal the RADIUS front's router directory already holds, decided without a read (so a
 * slow DynamoDB does not hold it up): a router it knows revoked (revocation is final), or a NAS
 * id not among its NAS ids (a router's list only ever shrinks, so a list held from before a
 * change still holds every NAS id it may speak for). Undefined otherwise, and always outside the
 * front: the request's own read then judges the router.
 */
export function refusedInMemory(
  attrs: Map<string, string>,
  route: 'authorize' | 'post-auth' | 'accounting',
): RouterRefusal | undefined {
  const routerId = attrs.get('Hotspot-Router-Id') ?? '';
  const router = routerId ? routerDirectory()?.router(routerId) : undefined;
  if (!router) return undefined;
  const nasId = attrs.get('NAS-Identifier') ?? '';
  const refused: RouterRefusal | undefined =
    router.status !== 'active'
      ? 'router_revoked'
      : nasId && !router.nas_ids.includes(nasId)
        ? 'foreign_nas_id'
        : undefined;
  if (refused)
    log.warn('radius request refused: router', {
      route,
      reason: refused,
      routerId,
      nasId,
      source: attrs.get('Hotspot-NAS-IP'),
      held: true,
    });
  return refused;
}

/**
 * Routers and the NAS ids they claim as read, by `<router>/<nas id>`, with when: held for
 * RADIUS_ROUTER_HOLD_S (0: none held). A held router is judged without a DynamoDB call.
 */
const held = new Map<string, { at: number; router: RouterRecord | undefined; nas: NasRecord | undefined }>();

/** The router and NAS of a request as held (see `held`), judged; undefined when not held. */
export function judgeHeld(
  of: RouterOfRequest,
): { router: RouterRecord } | { refused: RouterRefusal } | undefined {
  const holdS = radiusSettings().RADIUS_ROUTER_HOLD_S;
  if (!of.id || !of.nasId || holdS <= 0) return undefined;
  const h = held.get(`${of.id}/${of.nasId}`);
  if (!h || Date.now() - h.at >= holdS * 1000) return undefined;
  return of.judge(h.router, h.nas);
}

/** Keeps a router and its claimed NAS as read, when this process holds routers (RADIUS_ROUTER_HOLD_S). */
export function holdRouter(
  of: RouterOfRequest,
  router: RouterRecord | undefined,
  nas: NasRecord | undefined,
): void {
  if (!of.id || !of.nasId || radiusSettings().RADIUS_ROUTER_HOLD_S <= 0) return;
  held.set(`${of.id}/${of.nasId}`, { at: Date.now(), router, nas });
}

/** Reads the router and the NAS a request names (one BatchGetItem) and judges them. */
export async function judgeRouterOf(
  of: RouterOfRequest,
): Promise<{ router: RouterRecord } | { refused: RouterRefusal }> {
  if (!of.id || !of.nasId) return of.judge(undefined, undefined);
  const known = judgeHeld(of);
  if (known) return known;
  const [router, nas] = await batchGet(
    [
      [Router, { router_id: of.id }],
      [Nas, { nas_id: of.nasId }],
    ],
    { consistent: true },
  );
  holdRouter(of, router, nas);
  return of.judge(router, nas);
}

/**
 * Checks the request's router and the NAS it claims (one BatchGetItem). Answers the router when
 * it may speak for the NAS-Identifier, else logs why (with the ids, no secret) and answers the
 * refusal.
 */
export const requestRouter = (
  attrs: Map<string, string>,
  route: 'authorize' | 'post-auth' | 'accounting',
  edgeResellers?: readonly string[],
): Promise<{ router: RouterRecord } | { refused: RouterRefusal }> =>
  judgeRouterOf(routerOfRequest(attrs, route, edgeResellers));
