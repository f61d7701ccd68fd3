import { randomInt } from 'node:crypto';

/**
 * Access codes (a voucher's, or a purchase's): 10 characters without look-alikes (no 0/O,
 * 1/I/L), since they are read aloud, printed on paper and typed on phones; from the CSPRNG,
 * 31^10 (about 8e14) possibilities, unique by conditional write.
 */
const VOUCHER_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const VOUCHER_LENGTH = 10;

export function newCode(): string {
  let code = '';
  for (let i = 0; i < VOUCHER_LENGTH; i++) code += VOUCHER_ALPHABET[randomInt(VOUCHER_ALPHABET.length)];
  return code;
}

/**
 * A code as typed (`abcd-efgh-jk`, ` ABCD EFGH JK `) in the one spelling it is stored under: the
 * same rule as RADIUS logins and the portal (functions/radius/attributes.ts, normalizeCode).
 */
export const typedCode = (s: string): string => s.toUpperCase().replace(/[\s-]/g, '');
