// The router a RADIUS request comes from, judged once as the caller's identity before the request is looked at.

import { log } from '../core/log.js';
import type { NasRecord } from '../store/nas.js';
import type { RouterRecord } from '../store/routers.js';
import type { RadiusStore } from './port.js';

/**
 * The router a RADIUS request comes from, judged once, before anything of the request is
 * looked at: the caller's identity, as FreeRADIUS authenticated it (never as the packet says).
 * `Hotspot-Router-Id` is the dynamic client's shortname (UDP: the router registered at the
 * packet's source address) or the CN of its RadSec client certificate, with
 * `Hotspot-Router-Cert-Serial`. FreeRADIUS sets both with `:=` on every request; numbers above
 * 255 cannot travel in a packet, so a router cannot forge them.
 *
 * The request is the router's to make only if the router is active, its credentials are the
 * current ones (over RadSec, the serial of the last certificate issued to it), the
 * NAS-Identifier it claims is one of its NAS ids, and that NAS id is its reseller's now: a NAS id
 * released and allocated again belongs to its new holder, and the previous holder's router no
 * longer speaks for it even if its list still names it (a release revokes such routers too:
 * functions/network/vlans.ts). An in-country edge speaks for its own resellers' routers only.
 *
 * One function judges, over what its store holds (`heldCaller`: a router and NAS id read within
 * RADIUS_ROUTER_HOLD_S, an edge's replica) or else reads (`readCaller`). What the front's
 * directory can refuse for good (revoked, a NAS id off the router's list) needs no read.
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

/** The router a request came from, once judged: what the core decides for. */
export interface Caller {
  router_id: string;
  reseller_id: string;
  /** The router as held or read: its request is its traffic ("last heard"). */
  router?: RouterRecord;
}

export type Judged = { caller: Caller } | { refused: RouterRefusal };

export type RadiusRoute = 'authorize' | 'post-auth' | 'accounting';

interface Claim {
  routerId: string | undefined;
  /** The NAS-Identifier claimed, when it can be a key (1 to 64 characters). */
  nasId: string | undefined;
  certSerial: string | undefined;
}

/** What the router alone decides: unknown, revoked, stale credentials, a NAS id not in its list. */
function routerRefusal(router: RouterRecord | undefined, claim: Claim): RouterRefusal | undefined {
  if (!router) return 'unknown_router';
  if (router.status !== 'active') return 'router_revoked';
  if (router.transport === 'radsec') {
    if (!claim.certSerial || claim.certSerial.toLowerCase() !== router.cert_serial)
      return 'stale_certificate';
  } else if (claim.certSerial) {
    // A UDP router's id never comes with a certificate: something else named it.
    return 'stale_certificate';
  }
  if (!claim.nasId || !router.nas_ids.includes(claim.nasId)) return 'foreign_nas_id';
  return undefined;
}

/** The whole rule: the router's, then the NAS id's holder now, then the edge's resellers. */
function refusal(
  router: RouterRecord | undefined,
  nas: Pick<NasRecord, 'reseller_id'> | undefined,
  claim: Claim,
  edgeResellers: readonly string[] | undefined,
): RouterRefusal | undefined {
  const own = routerRefusal(router, claim);
  if (own || !router) return own ?? 'unknown_router';
  if (nas?.reseller_id !== router.reseller_id) return 'foreign_nas_id';
  if (edgeResellers && !edgeResellers.includes(router.reseller_id)) return 'outside_edge';
  return undefined;
}

/**
 * Judges the router of a request. `edgeResellers`: sent by an in-country edge, which speaks for
 * these resellers' routers only. A refusal is logged (the ids, no secret).
 */
export async function judgeCaller(
  attrs: ReadonlyMap<string, string>,
  route: RadiusRoute,
  store: Pick<RadiusStore, 'heldCaller' | 'readCaller'>,
  edgeResellers?: readonly string[],
): Promise<Judged> {
  const routerId = attrs.get('Hotspot-Router-Id') ?? '';
  const nasId = attrs.get('NAS-Identifier') ?? '';
  const claim: Claim = {
    routerId: /^[a-z0-9_]{1,64}$/.test(routerId) ? routerId : undefined,
    nasId: nasId && nasId.length <= 64 ? nasId : undefined,
    certSerial: attrs.get('Hotspot-Router-Cert-Serial'),
  };
  let held = true;
  let router: RouterRecord | undefined;
  let nas: NasRecord | undefined;
  if (claim.routerId && claim.nasId) {
    const known = store.heldCaller(claim.routerId, claim.nasId);
    // Revoked, or a NAS id off its list: final (a revocation is, and a list only shrinks), so a
    // copy from before a change cannot refuse wrongly.
    const final = known.listed && routerRefusal(known.listed, claim);
    if (final === 'router_revoked' || final === 'foreign_nas_id') ({ router } = { router: known.listed });
    else if (known.router && known.nas) ({ router, nas } = known);
    else {
      held = false;
      ({ router, nas } = await store.readCaller(claim.routerId, claim.nasId));
    }
  }
  const refused = refusal(router, nas, claim, edgeResellers);
  if (refused) {
    log.warn('radius request refused: router', {
      route,
      reason: refused,
      routerId,
      nasId,
      source: attrs.get('Hotspot-NAS-IP'),
      held,
    });
    return { refused };
  }
  const accepted = router as RouterRecord;
  return { caller: { router_id: accepted.router_id, reseller_id: accepted.reseller_id, router: accepted } };
}
