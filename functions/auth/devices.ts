// A device credential: a phone that verified its number once logs in again without an SMS, until it expires or is revoked.

import { createHash, randomBytes } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { log, maskMsisdn } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { sessionClaims } from '../core/principal.js';
import { deleteDevice, getDevice, putDevice } from '../store/devices.js';
import { readForVerify } from '../store/otp.js';
import { subscriberRef } from './otp.js';
import { SESSION_TTL_SECONDS, signSession } from './tokens.js';

/** How long a device credential lets its phone in without an SMS. */
export const DEVICE_TTL_MS = 30 * 24 * 3_600_000;

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** 32 random bytes, base64url: what the portal keeps. Shape-checked before any read. */
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

const refused = () => new AppError('ERR_UNAUTHENTICATED', 'This device must verify a code again');

/**
 * A new device credential for an account that just verified a code: the secret is returned
 * once, its hash stored with the account and its token version.
 */
export async function issueDevice(account: {
  msisdn: string;
  accountId: string;
  tokenVersion: number;
}): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  const now = clock.now();
  await putDevice({
    hash: hashOf(secret),
    msisdn: account.msisdn,
    account_id: account.accountId,
    token_version: account.tokenVersion,
    created_at: clock.iso(now),
    expires_at: now + DEVICE_TTL_MS,
  });
  countMetric('DeviceRemembered');
  return secret;
}

/**
 * A session token for a remembered device, without an SMS. Refused (401) when the credential is
 * unknown, revoked, past its 30 days, or its account logged out everywhere since (its token
 * version moved on) or is now an operator's (operators verify a code every time).
 */
export async function deviceSession(
  secret: string,
): Promise<{ session_token: string; subscriber_ref: string; expires_in: number }> {
  if (!DEVICE_TOKEN.test(secret)) throw refused();
  const device = await getDevice(hashOf(secret));
  if (!device || device.expires_at <= clock.now()) throw refused();
  const account = await readForVerify(device.msisdn);
  if (
    !account ||
    account.accountId !== device.account_id ||
    account.tokenVersion !== device.token_version ||
    account.role !== 'subscriber'
  ) {
    throw refused();
  }
  const ref = subscriberRef(device.msisdn);
  const { token } = await signSession(
    sessionClaims({
      sub: account.accountId,
      role: account.role,
      ref,
      tokenVersion: account.tokenVersion,
    }),
  );
  log.info('device session', { msisdn: maskMsisdn(device.msisdn) });
  countMetric('DeviceSession');
  return { session_token: token, subscriber_ref: ref, expires_in: SESSION_TTL_SECONDS };
}

/** Forgets a device: its credential no longer opens a session. Whoever holds it may do this. */
export async function revokeDevice(secret: string): Promise<void> {
  if (DEVICE_TOKEN.test(secret)) await deleteDevice(hashOf(secret));
}
