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

/**
 * A `t=<unix seconds>,<scheme>=<hex>[,<scheme>=<hex>...]` header (FedaPay's `s`, Wave's `v1`):
 * its timestamp and every signature given (several while the gateway rolls the secret).
 */
export function parseTimestampedSignature(
  header: string,
  scheme: string,
): { t: string; signatures: string[] } | undefined {
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [k, v = ''] = part.trim().split('=', 2);
    if (k === 't' && /^\d{1,12}$/.test(v)) t = v;
    if (k === scheme && v) signatures.push(v);
  }
  return t === undefined || !signatures.length ? undefined : { t, signatures };
}

/** A notification signed under a timestamped header, as the gateway sends it and we check it. */
export interface TimestampedNotification {
  /** The header's value and its name (for the refusal). */
  header: string | undefined;
  headerName: string;
  scheme: string;
  /** What the gateway signs, from the header's timestamp (and the raw body). */
  signed: (t: string) => string;
  secret: () => Promise<string>;
  toleranceS: number;
  nowMs: number;
}

/**
 * Checks a timestamped signature: the header's form, an HMAC of `signed(t)` under one of the
 * secret's keys (401), then the timestamp within the tolerance (checked after the signature, so
 * the age of an unsigned header tells nothing). Answers the id a redelivery of this very
 * notification keeps when the event carries none: its timestamp and first signature.
 */
export async function verifyTimestamped(n: TimestampedNotification): Promise<{ signatureId: string }> {
  const parsed = parseTimestampedSignature(n.header ?? '', n.scheme);
  if (!parsed) throw badSignature(`Missing or malformed ${n.headerName}`);
  const keys = secretKeys(await n.secret());
  if (!anySignatureMatches(keys, n.signed(parsed.t), parsed.signatures)) throw badSignature();
  if (Math.abs(Math.floor(n.nowMs / 1000) - Number(parsed.t)) > n.toleranceS) {
    throw new AppError('ERR_SIGNATURE_STALE', 'Notification timestamp outside the tolerance');
  }
  return { signatureId: `signature:${parsed.t}:${parsed.signatures[0]}` };
}

/** A signed body's JSON, or undefined when it is not JSON (ignored, never an error). */
export function jsonEvent<E>(rawBody: string): E | undefined {
  try {
    return JSON.parse(rawBody) as E;
  } catch {
    return undefined;
  }
}
