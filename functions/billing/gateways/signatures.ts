import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';

/** HMAC-SHA256 of `data` under `secret`, lower-case hex (what PHP's hash_hmac answers). */
export const hmacHex = (secret: string, data: string): string =>
  createHmac('sha256', secret).update(data, 'utf8').digest('hex');

/**
 * The keys a provider secret holds: one, or `new,old` while the operator rotates it, so that
 * notifications signed with the old key keep verifying until the provider uses the new one.
 */
export const secretKeys = (value: string): string[] =>
  value
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

/** Constant-time equality of two hex digests (any case); false for anything that is not one. */
function sameHex(a: string, b: string): boolean {
  if (!/^[0-9a-f]+$/i.test(a) || !/^[0-9a-f]+$/i.test(b) || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a.toLowerCase(), 'hex'), Buffer.from(b.toLowerCase(), 'hex'));
}

/**
 * True when one of `given` is the HMAC of `data` under one of `keys`. Every pair is compared
 * (no early exit), so the time taken does not tell which key or which signature matched.
 */
export function anySignatureMatches(keys: string[], data: string, given: string[]): boolean {
  let found = false;
  for (const key of keys) {
    const expected = hmacHex(key, data);
    for (const g of given) found = sameHex(g, expected) || found;
  }
  return found;
}

export const badSignature = (message = 'Invalid notification signature') =>
  new AppError('ERR_SIGNATURE_INVALID', message);
