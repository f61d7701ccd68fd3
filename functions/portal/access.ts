// What the captive portal asks of a code before posting it to the router, and a phone's own codes.

import { addressKey } from '../core/address.js';
import { normalizeCode, type Refusal } from '../radius/attributes.js';
import {
  flooded,
  gateGuess,
  guessReads,
  hotspotCount,
  neverUsedCard,
  portalCounters,
} from '../radius/guesses.js';
import { standing } from '../radius/standing.js';
import { Access, type AccessCode, listCodesOf } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { getNas, Nas, type NasRecord } from '../store/nas.js';
import type { BudgetCount } from '../store/rate-limit.js';

/**
 * What the captive portal asks before posting a code to the router: the same rules as a
 * RADIUS login (code, hotspot, time, data), without taking a device slot or starting a clock.
 * `unconfirmed`: the check does not say (an unknown code, a printed card never used, any code
 * past the caller's budget: one answer for all); the router, which the portal posts the code
 * to, decides.
 */
export type CodeCheck = (Told | { valid: false; reason: 'unconfirmed' }) & Flood;
/**
 * `flood`: the hotspot's RADIUS count of wrong codes is spent (whatever the code: it tells
 * nothing of one): a printed card on a device it was not used on gets in only with a login pass
 * (`POST /access/pass`, signed in), which the portal then asks for.
 */
type Flood = { flood?: true };
type Valid = { valid: true; seconds_remaining: number; bytes_remaining: number | null };
/** A code's own answer, to a caller the budgets let have it. */
export type Told = Valid | { valid: false; reason: Refused };
/** The refusals that tell of a code in use (why it no longer lets anyone in). */
type Refused = 'expired' | 'data_used' | 'device_limit' | 'revoked';
type Verdict = Valid | { valid: false; reason: Refusal };

const UNCONFIRMED: CodeCheck = { valid: false, reason: 'unconfirmed' };
const tells = (v: Verdict): v is Told =>
  v.valid || ['expired', 'data_used', 'device_limit', 'revoked'].includes(v.reason);

function check(code: AccessCode | undefined, resellerId: string | undefined, nowMs: number): Verdict {
  if (!code) return { valid: false, reason: 'unknown_code' };
  if (code.reseller_id !== resellerId) return { valid: false, reason: 'wrong_hotspot' };
  const s = standing(code, nowMs);
  if ('refused' in s) return { valid: false, reason: s.refused };
  return { valid: true, seconds_remaining: s.secondsLeft, bytes_remaining: s.bytesLeft ?? null };
}

/**
 * The portal's check, behind the wrong-code budgets of its client address and of the hotspot
 * named (functions/radius/guesses.ts). Unknown codes, another reseller's and printed cards never
 * used are answered `unconfirmed` and counted as wrong; a code in use or a paid one is answered
 * on its merits while the address has a free place, else `unconfirmed` too. No answer is a
 * refusal: the subscribers of a hotspot share its address, and `unconfirmed` still takes them to
 * the router.
 */
export async function checkCode(
  nasId: string,
  typed: string,
  nowMs: number,
  clientAddress = 'unknown',
): Promise<CodeCheck> {
  const { code, nas, gate, flood } = await typedCodeAt(nasId, typed, nowMs, clientAddress);
  const result = check(code, nas?.reseller_id, nowMs);
  const told = code && tells(result) && !neverUsedCard(code) ? result : undefined;
  const answer = (await gate(told ? 'hit' : 'miss')).allowed && told ? told : UNCONFIRMED;
  return flood ? { ...answer, flood } : answer;
}

/**
 * What a code found at a hotspot allows, told to a caller whose budget was spent on it (a
 * signed-in subscriber's account); undefined for a code unknown there (none, another
 * reseller's).
 */
export function toldAt(code: AccessCode | undefined, nas: NasRecord | undefined, nowMs: number) {
  const result = check(code, nas?.reseller_id, nowMs);
  return nas && tells(result) ? result : undefined;
}

/**
 * A code typed on the portal at a hotspot, and the hotspot's NAS, read with the wrong-code
 * counters of the client address (an IPv4 address or an IPv6 /64) and of the hotspot, and the
 * hotspot's RADIUS count, in one BatchGetItem. The caller says what it found
 * (`gate('miss' | 'hit')`) and gives the code's own answer only when allowed. These public
 * routes never spend the budget of a router or NAS (RADIUS logins'): they read it (`flood`,
 * true once spent), and the hotspot's portal count only raises an alert.
 */
export async function typedCodeAt(nasId: string, typed: string, nowMs: number, clientAddress: string) {
  const counters = portalCounters(nasId, addressKey(clientAddress));
  const [code, nas, radiusCount, ...counts] = (await batchGet(
    [
      [Access, { code: normalizeCode(typed) }] as const,
      [Nas, { nas_id: nasId }] as const,
      ...guessReads([hotspotCount(nasId)], nowMs),
      ...guessReads(counters, nowMs),
    ],
    { consistent: true },
  )) as [AccessCode | undefined, NasRecord | undefined, ...(BudgetCount | undefined)[]];
  const gate = (finding: 'miss' | 'hit') => gateGuess(counters, counts, nowMs, finding);
  return { code, nas, gate, flood: flooded(radiusCount, nowMs) || undefined };
}

/**
 * A subscriber's codes that still allow something (at one hotspot when `nasId` is given), and
 * the history of their codes (newest 20, used up or not): the portal's "Retrouver mon code".
 */
export async function myCodes(subscriberId: string, nasId: string | undefined, nowMs: number) {
  const [codes, nas] = await Promise.all([listCodesOf(subscriberId), nasId ? getNas(nasId) : undefined]);
  const items = [];
  const history = [];
  for (const code of codes) {
    const anywhere = check(code, code.reseller_id, nowMs);
    const named = {
      code: code.code,
      forfait_id: code.forfait_id,
      forfait_name: code.forfait_name ?? null,
      expires_at: code.expires_at ?? null,
    };
    history.push({ ...named, source: code.source, created_at: code.created_at, active: anywhere.valid });
    if (nasId && !nas) continue;
    const result = check(code, nas ? nas.reseller_id : code.reseller_id, nowMs);
    if (!result.valid) continue;
    items.push({
      ...named,
      seconds_remaining: result.seconds_remaining,
      bytes_remaining: result.bytes_remaining,
      /** The hotspot it was last used at (NAS id), null before its first login. */
      last_nas_id: code.last_nas_id ?? null,
      max_devices: code.offer.max_devices,
    });
  }
  return { items, history };
}
