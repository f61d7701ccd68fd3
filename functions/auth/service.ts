import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { countMetric, log, maskMsisdn } from '../core/log.js';
import { getSecret } from '../core/secrets.js';
import { sendSms } from '../core/sms.js';
import { SESSION_TTL_SECONDS, sessionClaims, signSession } from '../core/tokens.js';
import { consumeOtp, issueOtp, readForRequest, readForVerify, recordFailure } from '../store/otp.js';
import type { RateWindow } from '../store/rate-limit.js';
import {
  compactMsisdn,
  generateCode,
  hashCode,
  hashesMatch,
  normalizeMsisdn,
  OTP,
  smsText,
  subscriberRef,
} from './otp.js';

const OTP_WINDOW: RateWindow = { scope: 'OTP', limit: OTP.requestsPerWindow, windowMs: OTP.windowMs };

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
 * answer: the account is created at the first request. The rate-limit slot, the account and the
 * code are written in one transaction; a lost race reads again (bounded).
 */
export async function requestOtp(input: string): Promise<{ otp_token: string }> {
  const msisdn = requireMsisdn(input);
  const now = clock.now();
  const pepper = await getSecret('OTP_PEPPER');
  const code = generateCode();
  const otpToken = randomUUID();

  for (let attempt = 0; attempt < OTP.requestsPerWindow + 4; attempt++) {
    const { plan, account } = await readForRequest(OTP_WINDOW, msisdn, now);
    if (!plan.allowed) throw rateLimited(plan.retryAfterSeconds);
    let fails = account?.fails ?? 0;
    if (fails >= OTP.maxFails) {
      const lockedUntil = (account?.lastFailAt ?? 0) + OTP.lockoutMs;
      if (now < lockedUntil) throw rateLimited(Math.ceil((lockedUntil - now) / 1000));
      fails = 0;
    }
    const accountId = account?.accountId ?? randomUUID();
    const issued = await issueOtp({
      window: OTP_WINDOW,
      msisdn,
      plan,
      nowMs: now,
      read: account,
      accountId,
      otpToken,
      codeHash: hashCode(pepper, accountId, otpToken, code),
      expiresAt: now + OTP.lifetimeMs,
      fails,
      createdAt: clock.iso(now),
    });
    if (issued) {
      await sendSms(msisdn, smsText(code));
      log.info('otp sent', { msisdn: maskMsisdn(msisdn) });
      countMetric('OtpSent');
      return { otp_token: otpToken };
    }
    // Lost a race on this number: back off a little (jittered) before reading again.
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)));
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
  const msisdn = compactMsisdn(input);
  if (!msisdn) throw invalid();
  const state = await readForVerify(msisdn);
  if (!state?.otpToken || !state.codeHash || state.used || (state.fails ?? 0) >= OTP.maxFails)
    throw invalid();
  if (otpToken !== undefined && otpToken !== state.otpToken) throw invalid();

  const pepper = await getSecret('OTP_PEPPER');
  const given = hashCode(pepper, state.accountId, state.otpToken, code);
  if (!hashesMatch(given, state.codeHash)) {
    const fails = await recordFailure(msisdn, state.otpToken, clock.now());
    log.info('otp rejected', { msisdn: maskMsisdn(msisdn), fails });
    countMetric('OtpRejected');
    throw invalid();
  }
  if (clock.now() >= (state.expiresAt ?? 0)) {
    throw new AppError('ERR_OTP_EXPIRED', 'The code has expired, request a new one');
  }
  if (!(await consumeOtp(msisdn, state.otpToken, OTP.maxFails))) throw invalid();

  const ref = subscriberRef(msisdn);
  const { token } = await signSession(
    sessionClaims({ sub: state.accountId, role: state.role, ref, resellerId: state.resellerId }),
  );
  log.info('otp verified', { msisdn: maskMsisdn(msisdn), role: state.role });
  countMetric('OtpVerified');
  return { session_token: token, subscriber_ref: ref, expires_in: SESSION_TTL_SECONDS };
}
