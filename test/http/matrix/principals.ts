import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { tokenFor } from '../../support/http.js';

export const PRINCIPALS = [
  'none',
  'expired',
  'forged',
  'subscriber',
  'otherReseller',
  'owner',
  'admin',
] as const;
export type Who = (typeof PRINCIPALS)[number];

/** The callers of the matrix: a reseller that owns the fixtures, another one, and the rest. */
export interface Cast {
  ownerResellerId: string;
  otherResellerId: string;
  subscriberId: string;
  tokens: Record<Who, string | undefined>;
}

async function signed(key: string, expSecondsFromNow: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'admin', ref: 'SUB-1' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('hotspot-platform')
    .setAudience('hotspot-api')
    .setSubject(randomUUID())
    .setIssuedAt(now - 1000)
    .setExpirationTime(now + expSecondsFromNow)
    .sign(new TextEncoder().encode(key));
}

export async function makeCast(): Promise<Cast> {
  const ownerResellerId = randomUUID();
  const otherResellerId = randomUUID();
  const subscriberId = randomUUID();
  return {
    ownerResellerId,
    otherResellerId,
    subscriberId,
    tokens: {
      none: undefined,
      // An admin token, well signed, that expired a minute ago.
      expired: await signed(process.env.JWT_SECRET as string, -60),
      // An admin token signed with another key.
      forged: await signed('an-attacker-key-of-the-same-length-000', 600),
      subscriber: await tokenFor('subscriber', { sub: subscriberId }),
      otherReseller: await tokenFor('reseller', { resellerId: otherResellerId }),
      owner: await tokenFor('reseller', { resellerId: ownerResellerId }),
      admin: await tokenFor('admin'),
    },
  };
}
