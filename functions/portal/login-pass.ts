// A login pass: a card proven for one device at a hotspot by its signed-in buyer, within the account's budget.

import { notFound } from '../core/errors.js';
import { deviceKey, normalizeCode } from '../radius/attributes.js';
import { gateAccountGuess } from '../radius/guesses.js';
import { Access, type AccessCode } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { putLoginPass } from '../store/login-passes.js';
import { Nas, type NasRecord } from '../store/nas.js';
import { type Told, toldAt } from './access.js';
import { type DeviceAtHotspot, macOf } from './remembered-devices.js';

/**
 * How long a pass proves its device: the portal posts the card to the router at once, and a
 * retry or two fit. From its first login on, the card is on the device (its lease, then its
 * ended sessions) and needs no pass there.
 */
const PASS_MS = 15 * 60_000;

export type LoginPassAnswer =
  | (Extract<Told, { valid: true }> & { first_use: boolean; pass_expires_at: string })
  | Extract<Told, { valid: false }>;

/**
 * `POST /api/v1/access/pass`: a signed-in subscriber proves a code for one device (the MAC the
 * router's login page gave) at one hotspot. The code is answered on its merits behind the
 * account's wrong-code budget (functions/radius/guesses.ts `gateAccountGuess`: 10 wrong codes an
 * hour, then 429 for every code, right ones too, and no pass); unknown or another reseller's,
 * 404. A valid one gets the pass: RADIUS then lets that card in on that device even past the
 * hotspot's wrong-code count, which a guesser changing MAC at the router spends
 * (docs/security.md, "What guessing leaves"). A pass is what the guesser lacks: an account is a
 * number verified by SMS, and each guess it answers is one of that account's.
 */
// Access: BatchGetItem [pk=CODE#<code>, pk=NAS#<nas_id>]; the account budget (gateAccountGuess);
// PutItem pk=PASS#<code> sk=DEVICE#<nas_id>/<MAC> for a valid code.
export async function loginPass(
  subscriberId: string,
  input: DeviceAtHotspot,
  nowMs: number,
): Promise<LoginPassAnswer> {
  const mac = macOf(input.mac);
  const [code, nas] = (await batchGet(
    [[Access, { code: normalizeCode(input.code) }] as const, [Nas, { nas_id: input.nas_id }] as const],
    { consistent: true },
  )) as [AccessCode | undefined, NasRecord | undefined];
  const told = toldAt(code, nas, nowMs);
  await gateAccountGuess(subscriberId, nowMs, told ? 'hit' : 'miss');
  if (!told || !code) throw notFound('Access code');
  if (!told.valid) return told;
  const until = nowMs + PASS_MS;
  await putLoginPass({
    code: code.code,
    device: deviceKey({ nasId: input.nas_id, callingStationId: mac }),
    until,
  });
  return { ...told, first_use: !code.started_at, pass_expires_at: new Date(until).toISOString() };
}
