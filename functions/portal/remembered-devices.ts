// Devices that reconnect without typing their code: remembered, listed and forgotten by their holder.

import { assertHoldsCode } from '../core/access.js';
import { AppError, notFound } from '../core/errors.js';
import { pick } from '../core/pick.js';
import type { Principal } from '../core/principal.js';
import { normalizeCode, normalizeMac } from '../radius/attributes.js';
import { disconnectDevice } from '../radius/disconnect.js';
import { neverUsedCard } from '../radius/guesses.js';
import { standing } from '../radius/standing.js';
import { type AccessCode, getAccessCode, listCodesOf } from '../store/access-codes.js';
import { bindingsOfCode, bindMac, forgetMac, type MacBinding } from '../store/mac-bindings.js';
import { typedCodeAt } from './access.js';

/**
 * Devices that reconnect without typing their code (issue: returning devices): with the
 * subscriber's consent on the portal, the device's MAC is bound to the code at the hotspot's
 * reseller (functions/store/mac-bindings.ts), and a RouterOS hotspot with `login-by=mac` logs it
 * in by its MAC while the code is valid (functions/radius/login.ts). Forgetting it is one
 * call, by whoever holds the code (the portal) or by the code's subscriber (the API).
 *
 * The portal's two calls are public, like `POST /access/check`: knowing the code is the right
 * to remember or forget a device for it, and they are budgeted like code guesses (per hotspot
 * and client address), so they are no way to try codes. A printed card is remembered once it
 * has been used (its first login, by the router): before, the anonymous routes never confirm it.
 */
export interface RememberedDevice {
  code: string;
  mac: string;
  nas_id: string;
  bound_at: string;
  expires_at: string;
}

const view = (b: MacBinding): RememberedDevice => pick(b, 'code', 'mac', 'nas_id', 'bound_at', 'expires_at');

/**
 * The code named at a hotspot, budgeted as the portal's check is: 404 for an unknown code,
 * another reseller's, a printed card never used (remembered from its first login on) and, past
 * the client address's budget, any code: the same answer for all.
 */
async function codeAt(nasId: string, typed: string, nowMs: number, clientAddress: string) {
  const { code, nas, gate } = await typedCodeAt(nasId, typed, nowMs, clientAddress);
  const known = code && nas?.reseller_id === code.reseller_id && !neverUsedCard(code) ? code : undefined;
  if (!(await gate(known ? 'hit' : 'miss')).allowed || !known) throw notFound('Access code');
  return known;
}

/** The MAC the portal sends (the router's `$(mac)`), as RADIUS names it; 400 for anything else. */
export const macOf = (typed: string): string => {
  const mac = normalizeMac(typed);
  if (!mac) throw new AppError('ERR_VALIDATION', 'mac must be a MAC address');
  return mac;
};

/**
 * When the binding may go: the code's end; for a code whose clock has not started (the portal
 * binds just before its first login), the latest it could end.
 */
function bindingEnd(code: AccessCode, nowMs: number): string {
  if (code.expires_at) return code.expires_at;
  const from = Math.max(nowMs, code.use_by ? Date.parse(code.use_by) : nowMs);
  return new Date(from + code.offer.duration_hours * 3600_000).toISOString();
}

/** What the portal names a device by: the hotspot, the code and the device's MAC (from the router). */
export interface DeviceAtHotspot {
  nas_id: string;
  code: string;
  mac: string;
}

/** The portal's "Reconnecter cet appareil automatiquement": binds the device to a valid code. */
export async function rememberDevice(
  input: DeviceAtHotspot,
  clientAddress: string,
  nowMs: number,
): Promise<RememberedDevice & { bound_devices: number; max_devices: number }> {
  const mac = macOf(input.mac);
  const code = await codeAt(input.nas_id, input.code, nowMs, clientAddress);
  const s = standing(code, nowMs);
  if ('refused' in s)
    throw new AppError('ERR_CONFLICT', 'This access code no longer allows a connection', {
      details: [{ path: 'code', message: s.refused }],
    });
  const binding: MacBinding = {
    reseller_id: code.reseller_id,
    mac,
    code: code.code,
    nas_id: input.nas_id,
    ...(code.subscriber_id ? { subscriber_id: code.subscriber_id } : {}),
    bound_at: new Date(nowMs).toISOString(),
    expires_at: bindingEnd(code, nowMs),
  };
  const outcome = await bindMac(binding, code);
  if (outcome === 'gone') throw notFound('Access code');
  if (outcome === 'device_limit')
    throw new AppError(
      'ERR_DEVICE_LIMIT',
      `This code already remembers ${code.offer.max_devices} devices: forget one first`,
    );
  const after = await getAccessCode(code.code);
  const bound =
    outcome === 'bound' ? binding : ((await bindingsOfCode(code.code)).find((b) => b.mac === mac) ?? binding);
  return { ...view(bound), bound_devices: after?.bound_devices ?? 1, max_devices: code.offer.max_devices };
}

/**
 * Forgets a device of a code: its binding goes (its next MAC login is refused) and its live
 * MAC-login sessions are cut through Disconnect, so someone holding the code by a copied MAC is
 * out at once. Cutting again what is still open is harmless: forgetting twice does it too.
 */
async function forgetAndCut(code: AccessCode, mac: string, nowMs: number): Promise<boolean> {
  const forgotten = await forgetMac({ reseller_id: code.reseller_id, mac, code: code.code });
  await disconnectDevice(code, { mac }, 'device_forgotten', nowMs);
  return forgotten;
}

/** The portal's "Oublier cet appareil": the next MAC login of the device is refused, its MAC sessions cut. */
export async function forgetDevice(
  input: DeviceAtHotspot,
  clientAddress: string,
  nowMs: number,
): Promise<{ forgotten: boolean }> {
  const mac = macOf(input.mac);
  const code = await codeAt(input.nas_id, input.code, nowMs, clientAddress);
  return { forgotten: await forgetAndCut(code, mac, nowMs) };
}

/** The devices remembered for the caller's codes (its 20 newest), newest binding first. */
export async function myDevices(subscriberId: string): Promise<{ items: RememberedDevice[] }> {
  const codes = (await listCodesOf(subscriberId)).filter((c) => (c.bound_devices ?? 0) > 0);
  const bindings = (await Promise.all(codes.map((c) => bindingsOfCode(c.code)))).flat();
  return { items: bindings.map(view).sort((a, b) => b.bound_at.localeCompare(a.bound_at)) };
}

/** Forgets a device of one of the caller's codes (404 for anyone else's code or an unknown device). */
export async function forgetMyDevice(
  principal: Principal,
  typedCode: string,
  typedMac: string,
  nowMs: number,
): Promise<{ forgotten: true }> {
  const mac = macOf(typedMac);
  const code = await getAccessCode(normalizeCode(typedCode));
  assertHoldsCode(principal, code);
  if (!(await forgetAndCut(code, mac, nowMs))) throw notFound('Device');
  return { forgotten: true };
}
