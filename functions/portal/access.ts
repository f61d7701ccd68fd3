// What the captive portal asks of a code before posting it to the router, and a phone's own codes.

import { addressKey } from '../core/address.js';
import { AppError } from '../core/errors.js';
import { normalizeCode, type Refusal } from '../radius/attributes.js';
import { countWrongGuess, guessReads, judgeWrong, portalCounters } from '../radius/guesses.js';
import { standing } from '../radius/standing.js';
import { Access, type AccessCode, listCodesOf } from '../store/access-codes.js';
import { batchGet } from '../store/entity.js';
import { getNas, Nas, type NasRecord } from '../store/nas.js';
import type { BudgetCount } from '../store/rate-limit.js';

/**
 * What the captive portal asks before posting a code to the router: the same rules as a
 * RADIUS login (code, hotspot, time, data), without taking a device slot or starting a clock.
 */
export type CodeCheck =
  | { valid: true; seconds_remaining: number; bytes_remaining: number | null }
  | { valid: false; reason: Refusal };

function check(code: AccessCode | undefined, resellerId: string | undefined, nowMs: number): CodeCheck {
  if (!code) return { valid: false, reason: 'unknown_code' };
  if (code.reseller_id !== resellerId) return { valid: false, reason: 'wrong_hotspot' };
  const s = standing(code, nowMs);
  if ('refused' in s) return { valid: false, reason: s.refused };
  return { valid: true, seconds_remaining: s.secondsLeft, bytes_remaining: s.bytesLeft ?? null };
}

/**
 * The portal's check, behind the wrong-code counters of its client address and of the hotspot
 * named (functions/radius/guesses.ts): a right code is always answered; a wrong one past the
 * address's limit gets 429 ERR_RATE_LIMITED. A code of another reseller reads as unknown: the
 * check is public.
 */
export async function checkCode(
  nasId: string,
  typed: string,
  nowMs: number,
  clientAddress = 'unknown',
): Promise<CodeCheck> {
  const { code, nas, wrongGuess } = await typedCodeAt(nasId, typed, nowMs, clientAddress);
  const result = check(code, nas?.reseller_id, nowMs);
  if (result.valid || (result.reason !== 'unknown_code' && result.reason !== 'wrong_hotspot')) return result;
  await wrongGuess();
  return { valid: false, reason: 'unknown_code' };
}

/**
 * A code typed on the portal at a hotspot, and the hotspot's NAS, read with the wrong-code
 * counters of the client address (an IPv4 address or an IPv6 /64) and of the hotspot in one
 * BatchGetItem. Nothing refuses a code before it is read: every subscriber of a hotspot shares
 * its public address, so one phone guessing there must never stop the others' right codes. The
 * caller calls `wrongGuess` for a wrong code: 429 past the address's limit, counted otherwise.
 * These public routes never spend the budget of a router or NAS (RADIUS logins'): the hotspot's
 * portal count only raises an alert.
 */
export async function typedCodeAt(nasId: string, typed: string, nowMs: number, clientAddress: string) {
  const counters = portalCounters(nasId, addressKey(clientAddress));
  const [code, nas, ...counts] = (await batchGet(
    [
      [Access, { code: normalizeCode(typed) }] as const,
      [Nas, { nas_id: nasId }] as const,
      ...guessReads(counters, nowMs),
    ],
    { consistent: true },
  )) as [AccessCode | undefined, NasRecord | undefined, ...(BudgetCount | undefined)[]];
  const wrongGuess = async () => {
    const gate = judgeWrong(counters, counts, nowMs);
    if (!gate.allowed)
      throw new AppError('ERR_RATE_LIMITED', 'Too many wrong codes, try again later', {
        headers: { 'Retry-After': String(gate.retryAfterSeconds) },
      });
    await countWrongGuess(counters, nowMs);
  };
  return { code, nas, wrongGuess };
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
