// RFC 8908's Captive Portal API for one hotspot: whether a device is captive, and where its portal is.

import { config } from '../core/config.js';
import { canonicalIp } from '../core/ip.js';
import { normalizeMac } from '../radius/attributes.js';
import { standing } from '../radius/standing.js';
import { getAccessCode } from '../store/access-codes.js';
import { getNas } from '../store/nas.js';
import { fullSessions, openDevicesOfNas } from '../store/sessions.js';

/**
 * RFC 8908's Captive Portal API for one hotspot: what a phone that learnt the API's URL (DHCP
 * option 114, RFC 8910: the router's script points it here) reads to know whether it is held by
 * the portal, where the portal is, and, once online, the time and data its access code has left.
 *
 * Whether a device is online, and what its code has left, is told to that device only. The
 * platform sees a hotspot's devices through the router's NAT, all from the router's address, so
 * the device is the one whose MAC is `mac` (as the router's login page or the portal passes it)
 * asking from the address its open session's router reports from (`nas_ip`, the source of its
 * accounting): a request from anywhere else is not from behind that hotspot. The session must
 * be of the hotspot's current holder (a reused NAS id's earlier sessions are not). Every other
 * request, an online MAC asked about from elsewhere included, gets the answer an unknown device
 * gets: captive, and where the portal is; so the route tells nobody else whether a MAC is
 * online. The request a phone's system makes from the DHCP option names no MAC: it is sent to
 * the portal, which knows the device from the router's login page.
 */
export interface CaptiveState {
  captive: boolean;
  'user-portal-url': string;
  'venue-info-url'?: string;
  'seconds-remaining'?: number;
  'bytes-remaining'?: number;
  'can-extend-session'?: boolean;
}

export async function captiveState(
  nasId: string,
  mac: string | undefined,
  nowMs: number,
  sourceIp: string | undefined,
): Promise<CaptiveState | undefined> {
  const nas = await getNas(nasId);
  if (!nas) return undefined;
  // RFC 8908 wants HTTPS for the portal; PUBLIC_BASE_URL is the API's public address.
  const portal = `${config().PUBLIC_BASE_URL}/portal/${encodeURIComponent(nasId)}`;
  const captive: CaptiveState = { captive: true, 'user-portal-url': portal };
  const device = normalizeMac(mac);
  const from = canonicalIp(sourceIp);
  if (!device || !from) return captive;
  // Sessions name a device `<nas_id>/<MAC>` (functions/radius/attributes.ts, deviceKey).
  const key = `${nasId}/${device}`;
  // A hotspot's open sessions: tens to a few hundred items, one Query.
  const ids = (await openDevicesOfNas(nasId)).filter((s) => s.device === key).map((s) => s.id);
  if (ids.length === 0) return captive;
  const session = (await fullSessions(ids)).find(
    (s) => s.reseller_id === nas.reseller_id && canonicalIp(s.nas_ip) === from,
  );
  if (!session) return captive;
  const code = await getAccessCode(session.code);
  const s = code ? standing(code, nowMs) : undefined;
  if (!s || 'refused' in s) return captive;
  return {
    captive: false,
    'user-portal-url': portal,
    'seconds-remaining': s.secondsLeft,
    ...(s.bytesLeft !== undefined ? { 'bytes-remaining': Math.max(0, s.bytesLeft) } : {}),
    // The portal sells another forfait to a subscriber online.
    'can-extend-session': true,
  };
}
