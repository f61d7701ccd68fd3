// Constant-time comparisons of secrets and tokens.

import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time string equality. Both sides are hashed first so that neither the content nor
 * the length of the expected value leaks through timing.
 */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digestOf(a), digestOf(b));
}

/** The digest `safeEqual` compares: a value to check against many is hashed once. */
export const digestOf = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * `safeEqual(given, e)` for each expected value of which only the digests are kept: every one
 * compared, no early exit, each in constant time.
 */
export function digestMatches(given: string, expected: readonly Buffer[]): boolean {
  const digest = digestOf(given);
  let match = false;
  for (const e of expected) match = timingSafeEqual(digest, e) || match;
  return match;
}
