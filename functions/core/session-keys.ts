// The session tokens' signing keys, current and previous, read from JWT_SECRET.

import { getSecret } from './secrets.js';

/**
 * The session keys (secret JWT_SECRET): the key that signs session tokens and page cursors now,
 * and every key that still verifies them, by key id (`kid` in a token's header).
 *
 * The secret is either one string (the key the stack generates; its id is `k0`) or JSON:
 *
 *   {"current": "k1", "keys": {"k0": "<old key>", "k1": "<new key>"}}
 *
 * Rotation without logging anyone out: add a key and make it current, keeping the old one; each
 * function signs with the new key from its next cold start on, and tokens signed with the old one
 * (900 s at most) still verify. Remove the old key a day later, once no container can hold it.
 */

export const LEGACY_KID = 'k0';

export interface SessionKeys {
  current: { kid: string; secret: string };
  byKid: ReadonlyMap<string, string>;
}

/** Shortest key accepted: 256 bits of a random base64 string. */
const MIN_KEY_LENGTH = 32;

function parseSessionKeys(raw: string): SessionKeys {
  if (!raw.trimStart().startsWith('{')) {
    return { current: { kid: LEGACY_KID, secret: raw }, byKid: new Map([[LEGACY_KID, raw]]) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Not the parser's message: it would quote the secret.
    throw new Error('JWT_SECRET: not JSON, nor a plain key');
  }
  const { current, keys } = (parsed ?? {}) as { current?: unknown; keys?: unknown };
  if (typeof current !== 'string' || typeof keys !== 'object' || keys === null)
    throw new Error('JWT_SECRET: expected {"current": "<kid>", "keys": {"<kid>": "<key>"}}');
  const byKid = new Map<string, string>();
  for (const [kid, secret] of Object.entries(keys)) {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid) || typeof secret !== 'string' || secret.length < MIN_KEY_LENGTH)
      throw new Error(
        `JWT_SECRET: key "${kid.slice(0, 32)}" must be a string of ${MIN_KEY_LENGTH}+ characters`,
      );
    byKid.set(kid, secret);
  }
  const secret = byKid.get(current);
  if (!secret) throw new Error('JWT_SECRET: "current" names no key of "keys"');
  return { current: { kid: current, secret }, byKid };
}

let cache: { raw: string; keys: SessionKeys } | undefined;

/** The session keys, parsed once per value of the secret. */
export async function sessionKeys(): Promise<SessionKeys> {
  const raw = await getSecret('JWT_SECRET');
  if (cache?.raw !== raw) cache = { raw, keys: parseSessionKeys(raw) };
  return cache.keys;
}
