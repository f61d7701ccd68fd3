// The OTP login: a code requested by SMS and verified for a session token, each within its budgets (auth/otp-budgets.ts).

import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { log, maskMsisdn } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { sessionClaims } from '../core/principal.js';
import { getSecret } from '../core/secrets.js';
import { sendSms } from '../core/sms.js';
import {
  consumeOtp,
  issueOtp,
  type OtpState,
  readBudgetCounts,
  readForVerify,
  readLimitsAndAccount,
  refusal,
  refusedScopes,
  takeGuess,
} from '../store/otp.js';
import { untilSettled } from '../store/retry.js';
import { openConsoleSession } from './console-sessions.js';
import { issueDevice } from './devices.js';
import {
  compactMsisdn,
  generateCode,
  hashCode,
  hashesMatch,
  OTP,
  requireMsisdn,
  smsText,
  subscriberRef,
} from './otp.js';
import {
  attemptsFor,
  busyNumber,
  type Client,
  FIRST_LOGIN_ONLY,
  pickOne,
  rateLimited,
  requestLimits,
  takeTokenlessSlot,
} from './otp-budgets.js';
import { authSettings } from './settings.js';
import { SESSION_TTL_SECONDS, signSession } from './tokens.js';
/**
 * Issues a code for an MSISDN and sends it by SMS. Known and unknown numbers get the same
 * answer: the account is created at the first request. Limits bound the SMS sent: per number
 * (3 a minute), per client address, per destination and for the whole platform
 * (`requestLimits`). Their slots, the account and the code are written in one transaction, so
 * no limit is ever passed under concurrency; a lost race reads again (bounded). No earlier
 * wrong guess stops a request: the new code is a new challenge (see `verifyOtp`).
 */
export async function requestOtp(input: string, client?: Client): Promise<{ otp_token: string }> {
  const msisdn = requireMsisdn(input);
  const now = clock.now();
  const pepper = await getSecret('OTP_PEPPER');
  const code = generateCode();
  const otpToken = randomUUID();
  const { limits, budgets, sharded } = await requestLimits(msisdn, client);
  const shards = sharded.map(pickOne);

  // A lost race on this number reads again (`untilSettled`'s back-off).
  return untilSettled(
    async () => {
      const read = await readLimitsAndAccount(limits, [...budgets, ...shards], msisdn, now);
      const { account } = read;
      const planned = account?.verified
        ? read.planned.filter((p) => !FIRST_LOGIN_ONLY.has(p.limit.window.scope))
        : read.planned;
      const refusedBy = refusedScopes(planned);
      const full = sharded.filter((group) => refusedBy.includes(group[0]?.window.scope ?? ''));
      if (full.length && full.length === refusedBy.length) {
        // Its shard of a sharded budget is full: another with room, if any (the last codes go one by one).
        let moved = true;
        for (const group of full) {
          const counts = await readBudgetCounts(group, now);
          const open = group.filter((s, i) => (counts[i] ?? 0) < s.window.limit);
          if (open.length) shards[sharded.indexOf(group)] = pickOne(open);
          else moved = false;
        }
        if (moved) return undefined;
      }
      const refused = refusal(planned);
      if (refused) {
        log.info('otp request refused', { msisdn: maskMsisdn(msisdn), by: refusedBy.join(',') });
        throw rateLimited(refused.retryAfterSeconds);
      }
      // A new code is a new challenge with its own guesses: wrong guesses at an earlier one
      // (someone else's request, perhaps) burnt at most that one and lock nothing out. Soon after
      // a burnt code, a new one is compared once (OTP.afterBurnMs).
      const burnt =
        account !== undefined &&
        !account.used &&
        (account.fails ?? 0) >= account.guesses &&
        now - (account.lastFailAt ?? 0) < OTP.afterBurnMs;
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
        fails: 0,
        guesses: burnt ? OTP.guessesAfterBurn : OTP.maxFails,
        createdAt: clock.iso(now),
        unverifiedTtl: Math.floor(now / 1000) + authSettings().UNVERIFIED_ACCOUNT_HOURS * 3600,
      });
      if (issued) {
        await sendSms(msisdn, smsText(code));
        log.info('otp sent', { msisdn: maskMsisdn(msisdn) });
        countMetric('OtpSent');
        return { otp_token: otpToken };
      }
      return undefined;
    },
    busyNumber,
    attemptsFor(limits),
  );
}

const invalid = () => new AppError('ERR_OTP_INVALID', 'The code is incorrect or no longer valid');
const expired = () => new AppError('ERR_OTP_EXPIRED', 'The code has expired, request a new one');

/** A code that can still be verified: current, unused, not burnt. */
const live = (s: OtpState | undefined): s is OtpState & { otpToken: string; codeHash: string } =>
  !!s?.otpToken && !!s.codeHash && !s.used && (s.fails ?? 0) < s.guesses;

/**
 * Exchanges a code for a session token. Unknown number, no code, a used or burnt code and a
 * wrong code all answer ERR_OTP_INVALID; a right code past its lifetime ERR_OTP_EXPIRED.
 *
 * Only a guess that carries the current `otp_token` (which only whoever requested the code has)
 * counts against the code: it is counted before it is compared, so at most five guesses are
 * ever compared per code, parallel ones included, and the fifth burns that code, and only it:
 * the next request gets a new code (compared once, for 15 minutes after a burn), so nobody's
 * wrong guesses lock a number out. A guess without `otp_token` counts against nothing, so nobody
 * who did not request the code can burn it; such guesses are limited per number and per client
 * address instead (429 past the limit). A stale `otp_token` is refused without comparing.
 */
export async function verifyOtp(
  input: string,
  code: string,
  otpToken?: string,
  client?: Client,
  options: { rememberDevice?: boolean } = {},
): Promise<{
  session_token: string;
  subscriber_ref: string;
  expires_in: number;
  device_token?: string;
  refresh_token?: string;
}> {
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

  let failsAtMost = state.guesses - 1;
  if (otpToken !== undefined) {
    if (!(await takeGuess(msisdn, state.otpToken, state.guesses, now))) throw invalid();
    failsAtMost = state.guesses;
  }
  if (!matches) {
    log.info('otp rejected', { msisdn: maskMsisdn(msisdn), counted: otpToken !== undefined });
    countMetric('OtpRejected');
    throw invalid();
  }
  const retention = {
    nowIso: clock.iso(now),
    ttl:
      state.role === 'subscriber'
        ? Math.floor(now / 1000) + authSettings().SUBSCRIBER_RETENTION_DAYS * 86_400
        : undefined,
  };
  if (!(await consumeOtp(msisdn, state.otpToken, failsAtMost, retention))) throw invalid();

  const ref = subscriberRef(msisdn);
  const claims = sessionClaims({
    sub: state.accountId,
    role: state.role,
    ref,
    resellerId: state.resellerId,
    agentId: state.agentId,
    tokenVersion: state.tokenVersion,
  });
  // An operator or an agent opens a console session: a refresh token beside the 900 s token.
  const opened = claims.role === 'subscriber' ? undefined : await openConsoleSession({ ...claims, msisdn });
  const token = opened?.session_token ?? (await signSession(claims)).token;
  log.info('otp verified', { msisdn: maskMsisdn(msisdn), role: state.role });
  countMetric('OtpVerified');
  // A device credential for subscribers only: an operator verifies a code at every login.
  const device =
    options.rememberDevice && state.role === 'subscriber'
      ? await issueDevice({ msisdn, accountId: state.accountId, tokenVersion: state.tokenVersion })
      : undefined;
  return {
    session_token: token,
    subscriber_ref: ref,
    expires_in: SESSION_TTL_SECONDS,
    ...(device ? { device_token: device } : {}),
    ...(opened ? { refresh_token: opened.refresh_token } : {}),
  };
}
