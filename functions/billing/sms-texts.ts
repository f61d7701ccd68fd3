// The SMS that carries a bought access code.

import { toGsm7 } from '../core/gsm7.js';

/** Longest forfait name a code text carries: the text stays one 160-character segment. */
const NAME_MAX = 60;

/**
 * What a forfait name in a text may hold: letters, digits, spaces and `' - ( ) ,`, with at most
 * four digits in all. An own forfait's name is its reseller's free text, and the platform's
 * sender name makes a text trusted: a name that could pass as a phone number (five digits or
 * more), a USSD code (`*`, `#`) or a link (a dot, `/`, `:`, `@`, `www`, `http`) is left out of
 * the text rather than cut, so that no part of it is carried.
 */
const SAFE_NAME = /^[\p{L}\d '(),-]+$/u;
const MAX_DIGITS = 4;

/** The forfait's name as a text may carry it (GSM-7, at most NAME_MAX), or undefined when it may not. */
function smsForfaitName(forfaitName: string): string | undefined {
  const name = toGsm7(forfaitName.trim()).replace(/\s+/g, ' ');
  const digits = name.replace(/\D/g, '').length;
  if (!name || !SAFE_NAME.test(name) || digits > MAX_DIGITS || /www|http/i.test(name)) return undefined;
  return name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1).trimEnd()}.` : name;
}

/**
 * The access code's text, in GSM-7 (a reseller's forfait name may carry accents; one character
 * outside GSM-7 would make the whole text UCS-2, 70 characters a segment), in one segment, with
 * the forfait's name when a text may carry it (`smsForfaitName`), and what to do next.
 */
export function accessCodeText(code: string, forfaitName: string, then = ''): string {
  const name = smsForfaitName(forfaitName);
  return `Votre code d'acces WiFi est ${code}.${name ? ` Forfait: ${name}.` : ''}${then ? ` ${then}` : ''}`;
}
