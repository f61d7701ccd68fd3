// The SMS that carries a bought access code.

import { toGsm7 } from '../core/gsm7.js';
import type { Payment } from '../store/payments.js';
import { getReseller } from '../store/resellers.js';

/** Longest forfait name a code text carries: the text stays one 160-character segment. */
const NAME_MAX = 60;
/** Longest hotspot name a code text carries. */
const HOTSPOT_MAX = 30;

/** What a code's text says of what was sold: the forfait, its validity and data, where. */
export interface CodeSold {
  forfaitName: string;
  /** Absent: a text that names the forfait alone (no offer at hand). */
  offer?: { duration_hours: number; data_limit_mb: number };
  /** The hotspot's name as its customers know it (the reseller's business). */
  hotspot?: string | undefined;
}

/**
 * What a reseller's name in a text may hold (a forfait's, its business's): letters, digits,
 * spaces and `' - ( ) ,`, with at most four digits in all. Both are its free text, and the
 * platform's sender name makes a text trusted: a name that could pass as a phone number (five
 * digits or more), a USSD code (`*`, `#`) or a link (a dot, `/`, `:`, `@`, `www`, `http`) is
 * left out of the text rather than cut, so that no part of it is carried.
 */
const SAFE_NAME = /^[\p{L}\d '(),-]+$/u;
const MAX_DIGITS = 4;

/** A reseller's name as a text may carry it (GSM-7, at most `max`), or undefined when it may not. */
function smsName(text: string | undefined, max: number): string | undefined {
  const name = toGsm7((text ?? '').trim()).replace(/\s+/g, ' ');
  const digits = name.replace(/\D/g, '').length;
  if (!name || !SAFE_NAME.test(name) || digits > MAX_DIGITS || /www|http/i.test(name)) return undefined;
  return name.length > max ? `${name.slice(0, max - 1).trimEnd()}.` : name;
}

/** `ABCD EFGH JK`: a code read from a phone's screen is typed more surely in groups of four. */
export const groupedCode = (code: string): string => code.replace(/(.{4})(?=.)/g, '$1 ');

/** `7 jours`, `12 h`: as the cards print it. */
const validity = (hours: number) =>
  hours >= 24 && hours % 24 === 0 ? `${hours / 24} jour${hours === 24 ? '' : 's'}` : `${hours} h`;

/** `2 Go`, `300 Mo`; 0 is a forfait without a cap. */
const data = (mb: number) =>
  mb <= 0
    ? 'données illimitées'
    : mb >= 1024
      ? `${String(Math.round(mb / 102.4) / 10).replace('.', ',')} Go de données`
      : `${mb} Mo de données`;

/**
 * The access code's text, in GSM-7 (a reseller's forfait name may carry accents; one character
 * outside GSM-7 would make the whole text UCS-2, 70 characters a segment), in one segment: the
 * hotspot that sold it and the forfait when a text may carry their names (`smsName`), the code
 * grouped as the cards print it, how long it lasts and its data ("données illimitées", never
 * "0 Mo"), then what to do next. What does not fit goes, the hint first. A forfait's name alone
 * (a string) is a text without an offer or a hotspot.
 */
export function accessCodeText(
  code: string,
  sold: CodeSold | string,
  then = 'Tapez-le sur la page du hotspot.',
): string {
  const s = typeof sold === 'string' ? { forfaitName: sold } : sold;
  const name = smsName(s.forfaitName, NAME_MAX);
  const where = smsName(s.hotspot, HOTSPOT_MAX);
  const what = [
    ...(name ? [name] : []),
    ...(s.offer ? [validity(s.offer.duration_hours), data(s.offer.data_limit_mb)] : []),
  ].join(', ');
  const head = `${where ? `${where}: v` : 'V'}otre code WiFi ${groupedCode(code)}.${what ? ` ${what}.` : ''}`;
  const full = then ? `${head} ${then}` : head;
  return full.length <= 160 ? full : head.slice(0, 160);
}

/** A paid code's text: the payment's forfait and offer, named by its reseller's business. */
export async function paidCodeText(
  p: Pick<Payment, 'forfait_name' | 'offer' | 'reseller_id'>,
  code: string,
): Promise<string> {
  const reseller = await getReseller(p.reseller_id).catch(() => undefined);
  return accessCodeText(code, {
    forfaitName: p.forfait_name,
    offer: p.offer,
    hotspot: reseller?.reseller_name,
  });
}
