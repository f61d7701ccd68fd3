import { createHmac, timingSafeEqual } from 'node:crypto';
import { validation } from './errors.js';
import { getSecret } from './secrets.js';

/**
 * Opaque page cursors: base64url(JSON state) "." base64url(HMAC-SHA256), signed with the session
 * key for one list and one scope (a reseller, a day). A client can neither forge a start key
 * (another partition, a malformed key DynamoDB would refuse with a 500) nor reuse a cursor of
 * another list or scope; it learns nothing it could not list anyway.
 */
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64url');

async function mac(list: string, scope: string, payload: string): Promise<Buffer> {
  return createHmac('sha256', await getSecret('JWT_SECRET'))
    .update(`${list}:${scope}:${payload}`)
    .digest();
}

export async function sealCursor(list: string, scope: string, state: unknown): Promise<string> {
  const payload = b64(JSON.stringify(state));
  return `${payload}.${b64(await mac(list, scope, payload))}`;
}

/** The state a cursor of this list and scope carries (undefined without one); else 400. */
export async function openCursor<T>(
  list: string,
  scope: string,
  cursor: string | undefined,
): Promise<T | undefined> {
  if (!cursor) return undefined;
  const [payload = '', given = ''] = cursor.split('.');
  const expected = await mac(list, scope, payload);
  const g = Buffer.from(given, 'base64url');
  if (g.length !== expected.length || !timingSafeEqual(g, expected)) {
    throw validation('Invalid cursor', [{ path: 'query.cursor', message: 'not a cursor of this list' }]);
  }
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
}
