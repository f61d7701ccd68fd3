// The gateways' signature schemes over a raw body (HMAC, timestamped, signed events), checked in constant time with key rotation.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { GatewayStatus, VerifiedNotification } from './port.js';
import type { UpstreamPolicy } from './upstream.js';

/** HMAC-SHA256 of `data` under `secret`, lower-case hex (what PHP's hash_hmac answers). */
const hmacHex = (secret: string, data: string): string =>
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
function parseTimestampedSignature(
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

/**
 * A gateway's timestamped signature scheme: the header (lower case, as API Gateway hands it
 * over), the signature's key in it, and what joins the timestamp to the raw body in the signed
 * text.
 */
export interface TimestampedScheme {
  header: string;
  key: string;
  joiner: string;
}

/** What a gateway with a bearer-key API and a timestamped, signed webhook is built from. */
export interface SignedGatewayOptions {
  baseUrl: string;
  apiKey: () => Promise<string>;
  webhookSecret: () => Promise<string>;
  toleranceS: number;
  policy: UpstreamPolicy;
}

/**
 * Checks a timestamped signature: the header's form, an HMAC of `<t><joiner><raw body>` under
 * one of the secret's keys (401), then the timestamp within the tolerance (checked after the
 * signature, so the age of an unsigned header tells nothing). Answers the id a redelivery of
 * this very notification keeps when the event carries none: its timestamp and first signature.
 */
export async function verifyTimestamped(
  scheme: TimestampedScheme,
  headers: Record<string, string | undefined>,
  rawBody: string,
  check: { secret: () => Promise<string>; toleranceS: number; nowMs: number },
): Promise<{ signatureId: string }> {
  const parsed = parseTimestampedSignature(headers[scheme.header] ?? '', scheme.key);
  if (!parsed) throw badSignature(`Missing or malformed ${scheme.header} header`);
  const keys = secretKeys(await check.secret());
  const signed = `${parsed.t}${scheme.joiner}${rawBody}`;
  if (!anySignatureMatches(keys, signed, parsed.signatures)) throw badSignature();
  if (Math.abs(Math.floor(check.nowMs / 1000) - Number(parsed.t)) > check.toleranceS) {
    throw new AppError('ERR_SIGNATURE_STALE', 'Notification timestamp outside the tolerance');
  }
  return { signatureId: `signature:${parsed.t}:${parsed.signatures[0]}` };
}

/** A signed body's JSON, or undefined when it is not JSON (ignored, never an error). */
function jsonEvent(rawBody: string): Record<string, unknown> | undefined {
  try {
    const event: unknown = JSON.parse(rawBody);
    return typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A gateway's signed JSON events: its signature scheme, the field that names an event's type,
 * and the payment status each type it sends about a payment claims (the status API decides).
 */
export interface SignedEventScheme {
  signature: TimestampedScheme;
  typeAt: string;
  statuses: Readonly<Record<string, GatewayStatus>>;
}

/** A signed event about a payment: its body, the status its type claims, its notification id. */
export interface SignedEvent<E> {
  event: E;
  claimed: GatewayStatus;
  /** The event's own id when it carries one; else the signature's, unique to its content and time. */
  id: string;
}

/**
 * Reads a timestamped, signed JSON event (FedaPay, Wave): the signature first
 * (`verifyTimestamped`: 401, or stale), then the body. A body that is not a JSON object, or an
 * event type that claims no status, is signed but about nothing we act on: `ignored`, answered
 * and never an error.
 */
export async function verifiedEvent<E extends { id?: unknown }>(
  scheme: SignedEventScheme,
  notice: { headers: Record<string, string | undefined>; rawBody: string; nowMs: number },
  gateway: Pick<SignedGatewayOptions, 'webhookSecret' | 'toleranceS'>,
): Promise<SignedEvent<E> | Extract<VerifiedNotification, { kind: 'ignored' }>> {
  const check = { secret: gateway.webhookSecret, toleranceS: gateway.toleranceS, nowMs: notice.nowMs };
  const { signatureId } = await verifyTimestamped(scheme.signature, notice.headers, notice.rawBody, check);
  const event = jsonEvent(notice.rawBody);
  if (!event) return { kind: 'ignored', reason: 'not_json' };
  const type = event[scheme.typeAt];
  const claimed =
    typeof type === 'string' && Object.hasOwn(scheme.statuses, type) ? scheme.statuses[type] : undefined;
  if (!claimed) return { kind: 'ignored', reason: `event ${String(type)}` };
  const own = event.id;
  const id =
    (typeof own === 'string' && own !== '') || typeof own === 'number' ? `event:${own}` : signatureId;
  return { event: event as E, claimed, id };
}
