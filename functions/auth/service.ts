import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { countMetric, log, maskMsisdn } from '../core/log.js';
import { getSecret } from '../core/secrets.js';
import { sendSms } from '../core/sms.js';
import { SESSION_TTL_SECONDS, signSession } from '../core/tokens.js';
import { ensureAccount, getAccount } from '../store/accounts.js';
import { consumeOtp, getOtp, putOtp, recordFailure } from '../store/otp.js';
import { takeToken } from '../store/rate-limit.js';
import { generateCode, hashCode, hashesMatch, normalizeMsisdn, OTP, smsText, subscriberRef } from './otp.js';

const rateLimited = (retryAfterSeconds: number) =>
  new AppError('ERR_RATE_LIMITED', 'Too many code requests for this number, try again later', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export function requireMsisdn(input: string): string {
  const msisdn = normalizeMsisdn(input);
  if (!msisdn) {
    throw new AppError('ERR_MSISDN_INVALID', 'msisdn must be an international number: + and 8 to 15 digits');
  }
  return msisdn;
}

/**
 * Issues a code for an MSISDN and sends it by SMS. Known and unknown numbers get the same
 * answer: the account is created at the first request.
 */
export async function requestOtp(input: string): Promise<{ otp_token: string }> {
  const msisdn = requireMsisdn(input);
  const now = clock.now();
  const decision = await takeToken('OTP', msisdn, OTP.requestsPerWindow, OTP.windowMs, now);
  if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);

  const account = await ensureAccount(msisdn);
  const pepper = await getSecret('OTP_PEPPER');
  const code = generateCode();
  const otpToken = randomUUID();

  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await getOtp(account.id);
    let fails = current?.fails ?? 0;
    if (fails >= OTP.maxFails) {
      const lockedUntil = (current?.lastFailAt ?? 0) + OTP.lockoutMs;
      if (now < lockedUntil) throw rateLimited(Math.ceil((lockedUntil - now) / 1000));
      fails = 0;
    }
    const stored = await putOtp({
      subjectId: account.id,
      otpToken,
      codeHash: hashCode(pepper, account.id, otpToken, code),
      expiresAt: now + OTP.lifetimeMs,
      ttl: Math.ceil((now + OTP.lockoutMs) / 1000),
      expectFails: current?.fails,
      fails,
    });
    if (stored) {
      await sendSms(msisdn, smsText(code));
      log.info('otp sent', { msisdn: maskMsisdn(msisdn) });
      countMetric('OtpSent');
      return { otp_token: otpToken };
    }
  }
  throw new AppError('ERR_UNAVAILABLE', 'Too much activity on this number, try again shortly', {
    headers: { 'Retry-After': '1' },
  });
}

const invalid = () => new AppError('ERR_OTP_INVALID', 'The code is incorrect or no longer valid');

/**
 * Exchanges a code for a session token. Unknown number, no code, a used or burnt code and a
 * wrong code all answer ERR_OTP_INVALID; a right code past its lifetime ERR_OTP_EXPIRED.
 */
export async function verifyOtp(
  input: string,
  code: string,
  otpToken?: string,
): Promise<{ session_token: string; subscriber_ref: string; expires_in: number }> {
  const msisdn = normalizeMsisdn(input);
  if (!msisdn) throw invalid();
  const account = await getAccount(msisdn);
  const current = account ? await getOtp(account.id) : undefined;
  if (!account || !current || current.used || current.fails >= OTP.maxFails) throw invalid();
  if (otpToken !== undefined && otpToken !== current.otpToken) throw invalid();

  const pepper = await getSecret('OTP_PEPPER');
  const given = hashCode(pepper, account.id, current.otpToken, code);
  if (!hashesMatch(given, current.codeHash)) {
    const fails = await recordFailure(account.id, clock.now());
    log.info('otp rejected', { msisdn: maskMsisdn(msisdn), fails });
    countMetric('OtpRejected');
    throw invalid();
  }
  if (clock.now() >= current.expiresAt) {
    throw new AppError('ERR_OTP_EXPIRED', 'The code has expired, request a new one');
  }
  if (!(await consumeOtp(account.id, current.otpToken, OTP.maxFails))) throw invalid();

  const ref = subscriberRef(msisdn);
  const { token } = await signSession({
    sub: account.id,
    role: account.role,
    ref,
    ...(account.reseller_id ? { resellerId: account.reseller_id } : {}),
  });
  log.info('otp verified', { msisdn: maskMsisdn(msisdn), role: account.role });
  countMetric('OtpVerified');
  return { session_token: token, subscriber_ref: ref, expires_in: SESSION_TTL_SECONDS };
}
