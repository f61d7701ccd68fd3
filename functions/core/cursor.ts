// Opaque page cursors, sealed so a client can neither read nor forge one.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { validation } from './errors.js';
import { sessionKeys } from './session-keys.js';

/**
 * Opaque page cursors: base64url(JSON state) "." base64url(HMAC-SHA256), signed with the session
 * key (core/session-keys.ts) for one list and one scope (a reseller, a day). A client can neither forge a start key
 * (another partition, a malformed key DynamoDB would refuse with a 500) nor reuse a cursor of
 * another list or scope; it learns nothing it could not list anyway.
 */
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

const mac = (key: string, list: string, scope: string, payload: string): Buffer =>
  createHmac('sha256', key).update(`${list}:${scope}:${payload}`).digest();

export async function sealCursor(list: string, scope: string, state: unknown): Promise<string> {
  const payload = b64(JSON.stringify(state));
  return `${payload}.${b64(mac((await sessionKeys()).current.secret, list, scope, payload))}`;
}

/** The state a cursor of this list and scope carries (undefined without one); else 400. */
export async function openCursor<T>(
  list: string,
  scope: string,
  cursor: string | undefined,
): Promise<T | undefined> {
  if (!cursor) return undefined;
  const [payload = '', given = ''] = cursor.split('.');
  const g = Buffer.from(given, 'base64url');
  // Any key of the ring: a cursor made just before a rotation still reads its next page.
  const signedBy = [...(await sessionKeys()).byKid.values()].some((key) => {
    const expected = mac(key, list, scope, payload);
    return g.length === expected.length && timingSafeEqual(g, expected);
  });
  if (!signedBy) {
    throw validation('Invalid cursor', [{ path: 'query.cursor', message: 'not a cursor of this list' }]);
  }
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
}
