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

const cut = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1).trimEnd()}.` : text;

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
 * hotspot that sold it, the code grouped as the cards print it, the forfait, how long it lasts
 * and its data ("données illimitées", never "0 Mo"). What does not fit goes, the hint first.
 */
export function accessCodeText(code: string, sold: CodeSold): string {
  const name = cut(toGsm7(sold.forfaitName.trim()), NAME_MAX);
  const where = sold.hotspot ? cut(toGsm7(sold.hotspot.trim()), HOTSPOT_MAX) : '';
  const what = sold.offer
    ? `${name}, ${validity(sold.offer.duration_hours)}, ${data(sold.offer.data_limit_mb)}`
    : name;
  const head = `${where ? `${where}: v` : 'V'}otre code WiFi ${groupedCode(code)}. ${what}.`;
  const full = `${head} Tapez-le sur la page du hotspot.`;
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
