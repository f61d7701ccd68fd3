import { config } from '../core/config.js';
import { normalizeMac } from '../radius/attributes.js';
import { standing } from '../radius/authorize.js';
import { getAccessCode } from '../store/access-codes.js';
import { getNas } from '../store/nas.js';
import { openDevicesOfNas } from '../store/sessions.js';

/**
 * RFC 8908's Captive Portal API for one hotspot: what a phone that learnt the API's URL (DHCP
 * option 114, RFC 8910) reads to know whether it is held by the portal, where the portal is,
 * and, once online, the time and data its access code has left.
 *
 * The device is the one whose MAC is `mac` (as the router or the portal passes it): with an open
 * RADIUS session at this hotspot, it is not captive and its code's standing is answered. Any
 * other device (or none named) is captive and is sent to the portal.
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
): Promise<CaptiveState | undefined> {
  const nas = await getNas(nasId);
  if (!nas) return undefined;
  // RFC 8908 wants HTTPS for the portal; PUBLIC_BASE_URL is the API's public address.
  const portal = `${config().PUBLIC_BASE_URL}/portal/${encodeURIComponent(nasId)}`;
  const captive: CaptiveState = { captive: true, 'user-portal-url': portal };
  const device = normalizeMac(mac);
  if (!device) return captive;
  // A hotspot's open sessions: tens to a few hundred items, one Query.
  const open = await openDevicesOfNas(nasId);
  const session = open.find((s) => s.device === device);
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
