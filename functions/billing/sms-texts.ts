// The SMS that carries a bought access code.

import { toGsm7 } from '../core/gsm7.js';

/** Longest forfait name a code text carries: the text stays one 160-character segment. */
const NAME_MAX = 60;

/**
 * The access code's text, in GSM-7 (a reseller's forfait name may carry accents; one character
 * outside GSM-7 would make the whole text UCS-2, 70 characters a segment), in one segment.
 */
export function accessCodeText(code: string, forfaitName: string): string {
  const name = toGsm7(forfaitName.trim());
  const short = name.length > NAME_MAX ? `${name.slice(0, NAME_MAX - 1).trimEnd()}.` : name;
  return `Votre code d'acces WiFi est ${code}. Forfait: ${short}.`;
}
