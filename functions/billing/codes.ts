// Access codes drawn: their alphabet, lengths and prefix, and a typed code read as stored.

import { randomInt } from 'node:crypto';

/**
 * Access codes (a voucher's, or a purchase's): 10 characters without look-alikes (no 0/O,
 * 1/I/L), since they are read aloud, printed on paper and typed on phones; from the CSPRNG,
 * 31^10 (about 8e14) possibilities, unique by conditional write.
 *
 * A batch of vouchers may choose another length (8 to 12) and a prefix of its own (up to 4 of
 * the same characters, a shop's initials): the rest, at least MIN_RANDOM characters, is drawn
 * as above, so a batch's codes stay at least 31^8 (about 8.5e11) possibilities apart. Eight:
 * a card whose buyer has not used it yet is what a guesser at a hotspot could find, and the
 * hotspot's guess budget (functions/radius/guesses.ts) leaves a guesser about 1e7 answers a
 * year; at 31^8 that finds 0.06 cards a year in a stock of 5,000 (at 31^6, 59).
 */
export const VOUCHER_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const VOUCHER_LENGTH = 10;
export const CODE_LENGTHS = { min: 8, max: 12 } as const;
export const MAX_PREFIX = 4;
export const MIN_RANDOM = 8;

export function newCode(length: number = VOUCHER_LENGTH, prefix = ''): string {
  let code = prefix;
  while (code.length < length) code += VOUCHER_ALPHABET[randomInt(VOUCHER_ALPHABET.length)];
  return code;
}

/**
 * A code as typed (`abcd-efgh-jk`, ` ABCD EFGH JK `) in the one spelling it is stored under: the
 * same rule as RADIUS logins and the portal (functions/radius/attributes.ts, normalizeCode).
 */
export const typedCode = (s: string): string => s.toUpperCase().replace(/[\s-]/g, '');
