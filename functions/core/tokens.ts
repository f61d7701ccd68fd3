import { errors, jwtVerify, SignJWT } from 'jose';
import { clock } from './clock.js';
import { config } from './config.js';
import { AppError } from './errors.js';
import { getSecret } from './secrets.js';

export const ROLES = ['subscriber', 'reseller', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling, as proven by the session token. */
export interface Principal {
  /** The account's UUID (subscriber id for subscribers). */
  sub: string;
  role: Role;
  /** `SUB-<digits>` of the account's MSISDN. */
  ref: string;
  /** Set for resellers: the reseller they act for. */
  resellerId?: string;
  /** Expiry of the token (epoch seconds), set on verified tokens. */
  exp?: number;
}

export const SESSION_TTL_SECONDS = 900;
// Pinned: a token signed with any other algorithm, `none` included, is refused.
const ALG = 'HS256';

let keyCache: { raw: string; key: Uint8Array } | undefined;

async function signingKey(): Promise<Uint8Array> {
  const raw = await getSecret('JWT_SECRET');
  if (keyCache?.raw !== raw) keyCache = { raw, key: new TextEncoder().encode(raw) };
  return keyCache.key;
}

/** Signs a session token valid for 900 s; returns it with its expiry (epoch seconds). */
export async function signSession(p: Principal): Promise<{ token: string; exp: number }> {
  const { JWT_ISSUER, JWT_AUDIENCE } = config();
  const iat = clock.nowSeconds();
  const exp = iat + SESSION_TTL_SECONDS;
  const token = await new SignJWT({
    role: p.role,
    ref: p.ref,
    ...(p.resellerId ? { reseller_id: p.resellerId } : {}),
  })
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setSubject(p.sub)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await signingKey());
  return { token, exp };
}

const unauthenticated = (message = 'A valid session token is required') =>
  new AppError('ERR_UNAUTHENTICATED', message);

/**
 * Verifies a bearer token: signature (HS256 only), `iss`, `aud`, `exp`, and the `sub` and `role`
 * claims. Any failure is a 401 that does not say which check failed.
 */
export async function verifySession(token: string): Promise<Principal & { exp: number }> {
  const { JWT_ISSUER, JWT_AUDIENCE } = config();
  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, await signingKey(), {
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
  const { sub, role, ref, reseller_id: resellerId, exp } = payload;
  if (typeof sub !== 'string' || typeof ref !== 'string' || typeof exp !== 'number') throw unauthenticated();
  if (!ROLES.includes(role as Role)) throw unauthenticated();
  if (role === 'reseller' && typeof resellerId !== 'string') throw unauthenticated();
  return {
    sub,
    role: role as Role,
    ref,
    exp,
    ...(typeof resellerId === 'string' ? { resellerId } : {}),
  };
}

/** Extracts the token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string {
  const match = header ? /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header.trim()) : null;
  if (!match?.[1]) throw unauthenticated();
  return match[1];
}
