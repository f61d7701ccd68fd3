import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { log, maskMsisdn } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { sessionClaims } from '../core/principal.js';
import { getSecret } from '../core/secrets.js';
import { sendSms } from '../core/sms.js';
import {
  type Budget,
  consumeOtp,
  issueOtp,
  type Limit,
  type OtpState,
  readForVerify,
  readLimitsAndAccount,
  refusal,
  takeGuess,
  takeLimits,
} from '../store/otp.js';
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
import { addressSubject, authSettings } from './settings.js';
import { SESSION_TTL_SECONDS, signSession } from './tokens.js';

const HOUR_MS = 3_600_000;
const OTP_WINDOW: RateWindow = { scope: 'OTP', limit: OTP.requestsPerWindow, windowMs: OTP.windowMs };
/** Verifications without the request's `otp_token`, per number. */
const GUESS_WINDOW: RateWindow = {
  scope: 'GUESS',
  limit: OTP.guessesWithoutToken,
  windowMs: OTP.guessWindowMs,
};

/** Who sent a request, as API Gateway (or the local server) saw it. Absent: an internal caller. */
export interface Client {
  sourceIp?: string;
}

/** The per-number limit, and the per-address one when the client has a budgeted address. */
function limitsOf(perNumber: Limit, perAddress: RateWindow, client: Client | undefined): Limit[] {
  const address = client && addressSubject(client.sourceIp);
  return address === undefined ? [perNumber] : [perNumber, { window: perAddress, subject: address }];
}

/**
 * How often a request reads again after losing a race: enough for every slot of its largest
 * limit to be taken by a parallel caller first, and then some.
 */
const attemptsFor = (limits: Limit[]): number => Math.max(...limits.map((l) => l.window.limit)) + 4;

const rateLimited = (retryAfterSeconds: number, message = 'Too many code requests, try again later') =>
  new AppError('ERR_RATE_LIMITED', message, {
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
 * answer: the account is created at the first request. Three limits bound the SMS sent: per
 * number (3 a minute), per client address (an hour's budget) and for the whole platform (per
 * clock hour). Their slots, the account and the code are written in one transaction, so no
 * limit is ever passed under concurrency; a lost race reads again (bounded).
 */
export async function requestOtp(input: string, client?: Client): Promise<{ otp_token: string }> {
  const msisdn = requireMsisdn(input);
  const settings = authSettings();
  const now = clock.now();
  const pepper = await getSecret('OTP_PEPPER');
  const code = generateCode();
  const otpToken = randomUUID();
  const limits = limitsOf(
    { window: OTP_WINDOW, subject: msisdn },
    {
      scope: 'OTP_ADDR',
      limit: settings.OTP_REQUESTS_PER_ADDRESS_PER_HOUR,
      windowMs: HOUR_MS,
    },
    client,
  );
  const budgets: Budget[] = [
    {
      window: { scope: 'OTP_ALL', limit: settings.OTP_REQUESTS_PER_HOUR, windowMs: HOUR_MS },
      subject: 'ALL',
    },
  ];

  for (let attempt = 0; attempt < attemptsFor(limits); attempt++) {
    const { planned, account } = await readLimitsAndAccount(limits, budgets, msisdn, now);
    const refused = refusal(planned);
    if (refused) {
      log.info('otp request refused', { msisdn: maskMsisdn(msisdn) });
      throw rateLimited(refused.retryAfterSeconds);
    }
    let fails = account?.fails ?? 0;
    if (fails >= OTP.maxFails) {
      const lockedUntil = (account?.lastFailAt ?? 0) + OTP.lockoutMs;
      if (now < lockedUntil) throw rateLimited(Math.ceil((lockedUntil - now) / 1000));
      fails = 0;
    }
    const accountId = account?.accountId ?? randomUUID();
    const issued = await issueOtp({
      planned,
      msisdn,
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
const expired = () => new AppError('ERR_OTP_EXPIRED', 'The code has expired, request a new one');

/** A code that can still be verified: current, unused, not burnt. */
const live = (s: OtpState | undefined): s is OtpState & { otpToken: string; codeHash: string } =>
  !!s?.otpToken && !!s.codeHash && !s.used && (s.fails ?? 0) < OTP.maxFails;

/**
 * Takes a slot of the limits of verifications without `otp_token` (per number, per client
 * address), and answers the account as read with them. 429 once a limit is reached.
 */
async function takeTokenlessSlot(msisdn: string, client: Client | undefined): Promise<OtpState | undefined> {
  const limits = limitsOf(
    { window: GUESS_WINDOW, subject: msisdn },
    {
      scope: 'GUESS_ADDR',
      limit: authSettings().OTP_GUESSES_PER_ADDRESS_PER_HOUR,
      windowMs: HOUR_MS,
    },
    client,
  );
  const now = clock.now();
  for (let attempt = 0; attempt < attemptsFor(limits); attempt++) {
    const { planned, account } = await readLimitsAndAccount(limits, [], msisdn, now);
    const refused = refusal(planned);
    if (refused) {
      throw rateLimited(
        refused.retryAfterSeconds,
        'Too many verifications without the otp_token of the request, try again later',
      );
    }
    if (await takeLimits(planned, now)) return account;
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)));
  }
  throw new AppError('ERR_UNAVAILABLE', 'Too much activity on this number, try again shortly', {
    headers: { 'Retry-After': '1' },
  });
}

/**
 * Exchanges a code for a session token. Unknown number, no code, a used or burnt code and a
 * wrong code all answer ERR_OTP_INVALID; a right code past its lifetime ERR_OTP_EXPIRED.
 *
 * Only a guess that carries the current `otp_token` (which only whoever requested the code has)
 * counts against the code: it is counted before it is compared, so at most five guesses are
 * ever compared per code, parallel ones included, and the fifth burns the code and locks new
 * codes out for 15 minutes. A guess without `otp_token` counts against nothing, so nobody who
 * did not request the code can burn it or lock the number out; such guesses are limited per
 * number and per client address instead (429 past the limit). A stale `otp_token` is refused
 * without comparing.
 */
export async function verifyOtp(
  input: string,
  code: string,
  otpToken?: string,
  client?: Client,
): Promise<{ session_token: string; subscriber_ref: string; expires_in: number }> {
  const msisdn = compactMsisdn(input);
  if (!msisdn) throw invalid();
  const state =
    otpToken === undefined ? await takeTokenlessSlot(msisdn, client) : await readForVerify(msisdn);
  if (!live(state)) throw invalid();
  if (otpToken !== undefined && otpToken !== state.otpToken) throw invalid();

  const pepper = await getSecret('OTP_PEPPER');
  const matches = hashesMatch(hashCode(pepper, state.accountId, state.otpToken, code), state.codeHash);
  const now = clock.now();
  // A code past its lifetime can no longer be used: comparing against it gains a guesser nothing.
  if (now >= (state.expiresAt ?? 0)) throw matches ? expired() : invalid();

  let failsAtMost = OTP.maxFails - 1;
  if (otpToken !== undefined) {
    if (!(await takeGuess(msisdn, state.otpToken, OTP.maxFails, now))) throw invalid();
    failsAtMost = OTP.maxFails;
  }
  if (!matches) {
    log.info('otp rejected', { msisdn: maskMsisdn(msisdn), counted: otpToken !== undefined });
    countMetric('OtpRejected');
    throw invalid();
  }
  if (!(await consumeOtp(msisdn, state.otpToken, failsAtMost))) throw invalid();

  const ref = subscriberRef(msisdn);
  const { token } = await signSession(
    sessionClaims({
      sub: state.accountId,
      role: state.role,
      ref,
      resellerId: state.resellerId,
      tokenVersion: state.tokenVersion,
    }),
  );
  log.info('otp verified', { msisdn: maskMsisdn(msisdn), role: state.role });
  countMetric('OtpVerified');
  return { session_token: token, subscriber_ref: ref, expires_in: SESSION_TTL_SECONDS };
}
