// Session tokens: signed and verified (HS256, with key rotation), and refused once their account's tokens are revoked.

import { errors, jwtVerify, SignJWT } from 'jose';
import { clock } from '../core/clock.js';
import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { msisdnOfRef, type Principal, type SessionClaims } from '../core/principal.js';
import { LEGACY_KID, sessionKeys } from '../core/session-keys.js';
import { sessionStateOf, wasErased } from '../store/accounts.js';
import { accountAndSession } from '../store/console-sessions.js';

/**
 * Signing and verifying session tokens. It lives in auth/ (not core/) because it reads the
 * account store for revocation and carries the JWT library: only the bundles of session routes
 * and the OTP check import it. The principal types every area uses are in core/principal.ts.
 */

export const SESSION_TTL_SECONDS = 900;
// Pinned: a token signed with any other algorithm, `none` included, is refused.
const ALG = 'HS256';

const encoded = new Map<string, Uint8Array>();
const keyBytes = (secret: string): Uint8Array => {
  let key = encoded.get(secret);
  if (!key) {
    key = new TextEncoder().encode(secret);
    encoded.set(secret, key);
  }
  return key;
};

/** Signs a session token valid for 900 s (naming its console session, if any); returns it with its expiry (epoch seconds). */
export async function signSession(p: SessionClaims): Promise<{ token: string; exp: number }> {
  const { JWT_ISSUER, JWT_AUDIENCE } = config();
  const iat = clock.nowSeconds();
  const exp = iat + SESSION_TTL_SECONDS;
  const { current } = await sessionKeys();
  const token = await new SignJWT({
    role: p.role,
    ref: p.ref,
    ...(p.role === 'reseller' ? { reseller_id: p.resellerId } : {}),
    ...(p.role === 'agent' ? { reseller_id: p.resellerId, agent_id: p.agentId } : {}),
    ...(p.tokenVersion ? { tv: p.tokenVersion } : {}),
    ...(p.sid ? { sid: p.sid } : {}),
  })
    .setProtectedHeader({ alg: ALG, typ: 'JWT', kid: current.kid })
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setSubject(p.sub)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(keyBytes(current.secret));
  return { token, exp };
}

const unauthenticated = (message = 'A valid session token is required') =>
  new AppError('ERR_UNAUTHENTICATED', message);

/**
 * Whether a token still stands for its account: same account id, role and reseller id, and the
 * account's token version not moved on since signing (a logout, `accounts revoke`, `accounts
 * remove` or a role change ends it at once). One strongly consistent GetItem. A token whose
 * number has no account at all was never issued by the login flow (only minted by tests and
 * tools holding the signing key, which can mint anything anyway): it stands, unless its
 * account was erased (a second GetItem, only then: functions/auth/erase.ts leaves that trace
 * for the tokens' lifetime).
 */
async function stillValid(p: Principal): Promise<boolean> {
  const msisdn = msisdnOfRef(p.ref);
  let account: Awaited<ReturnType<typeof sessionStateOf>>;
  if (p.sid) {
    // A console session's token: its session must still be there (a logout deletes it), read
    // with the account in one call.
    const read = await accountAndSession(msisdn, p.sid);
    if (!read.session || read.session.account_id !== p.sub || read.session.until_s * 1000 <= clock.now())
      return false;
    account = read.account;
  } else {
    account = await sessionStateOf(msisdn);
  }
  if (!account) return p.role !== 'subscriber' || !(await wasErased(p.sub));
  return (
    account.id === p.sub &&
    account.role === p.role &&
    (account.token_version ?? 0) === (p.tokenVersion ?? 0) &&
    (p.role !== 'reseller' || account.reseller_id === p.resellerId) &&
    (p.role !== 'agent' || (account.reseller_id === p.resellerId && account.agent_id === p.agentId))
  );
}

/**
 * Verifies a bearer token: signature (HS256 only), `iss`, `aud`, `exp`, the `sub` and `role`
 * claims, and that it still stands for its account (`stillValid`: one strongly consistent
 * GetItem). Any failure is a 401 that does not say which check failed.
 *
 * Every token is checked, a subscriber's too: its logout ends it at once, and so does its
 * erasure (the account is gone), so that a token issued before an erasure cannot carry the
 * number into a new payment. `checkRevocation: false` is for tools that only read the claims.
 */
export async function verifySession(
  token: string,
  options: { checkRevocation?: boolean } = {},
): Promise<Principal> {
  const principal = await verifyClaims(token);
  if ((options.checkRevocation ?? true) && !(await stillValid(principal))) throw unauthenticated();
  return principal;
}

async function verifyClaims(token: string): Promise<Principal> {
  const { JWT_ISSUER, JWT_AUDIENCE } = config();
  let payload: Record<string, unknown>;
  try {
    const keys = await sessionKeys();
    // The key its header names (a token of before key ids: the first key, `k0`); an unknown id
    // fails as a bad signature does.
    const keyOf = (header: { kid?: string }) => {
      const secret = keys.byKid.get(header.kid ?? LEGACY_KID);
      if (!secret) throw new errors.JWKSNoMatchingKey();
      return keyBytes(secret);
    };
    const verified = await jwtVerify(token, keyOf, {
      algorithms: [ALG],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: new Date(clock.now()),
    });
    payload = verified.payload as Record<string, unknown>;
  } catch (error) {
    if (error instanceof errors.JOSEError) throw unauthenticated();
    throw error;
  }
  const { sub, role, ref, reseller_id: resellerId, agent_id: agentId, exp, tv, sid } = payload;
  if (typeof sub !== 'string' || typeof ref !== 'string' || typeof exp !== 'number') throw unauthenticated();
  if (tv !== undefined && !(typeof tv === 'number' && Number.isInteger(tv) && tv >= 0))
    throw unauthenticated();
  if (sid !== undefined && typeof sid !== 'string') throw unauthenticated();
  const version = { ...(tv ? { tokenVersion: tv as number } : {}), ...(sid ? { sid } : {}) };
  switch (role) {
    case 'reseller':
      if (typeof resellerId !== 'string') throw unauthenticated();
      return { sub, ref, exp, role, resellerId, ...version };
    case 'agent':
      if (typeof resellerId !== 'string' || typeof agentId !== 'string') throw unauthenticated();
      return { sub, ref, exp, role, resellerId, agentId, ...version };
    case 'subscriber':
    case 'admin':
      return { sub, ref, exp, role, ...version };
    default:
      throw unauthenticated();
  }
}

/** Extracts the token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string {
  const match = header ? /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header.trim()) : null;
  if (!match?.[1]) throw unauthenticated();
  return match[1];
}
