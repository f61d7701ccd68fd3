import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { log, maskMsisdn } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { sessionClaims } from '../core/principal.js';
import { getSecret } from '../core/secrets.js';
import { sendSms } from '../core/sms.js';
import { getNas } from '../store/nas.js';
import {
  type Budget,
  consumeOtp,
  issueOtp,
  type Limit,
  type OtpState,
  readBudgetCounts,
  readForVerify,
  readLimitsAndAccount,
  refusal,
  refusedScopes,
  takeGuess,
  takeLimits,
} from '../store/otp.js';
import type { RateWindow } from '../store/rate-limit.js';
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
import { addressSubject, authSettings, macSubject } from './settings.js';
import { SESSION_TTL_SECONDS, signSession } from './tokens.js';

const HOUR_MS = 3_600_000;
const OTP_WINDOW: RateWindow = { scope: 'OTP', limit: OTP.requestsPerWindow, windowMs: OTP.windowMs };
/** Verifications without the request's `otp_token`, per number. */
const GUESS_WINDOW: RateWindow = {
  scope: 'GUESS',
  limit: OTP.guessesWithoutToken,
  windowMs: OTP.guessWindowMs,
};

/** The limiters whose subject is a phone number (erasing a subscriber drops them). */
export const PER_NUMBER_SCOPES = [OTP_WINDOW.scope, GUESS_WINDOW.scope] as const;

/**
 * Who sent a request, as API Gateway (or the local server) saw it, and, from the captive
 * portal, the hotspot and the device's MAC the router passed. Absent: an internal caller.
 */
export interface Client {
  sourceIp?: string;
  nasId?: string;
  clientMac?: string;
}

/** The per-number limit, and the per-address one when the client has a budgeted address. */
function limitsOf(perNumber: Limit, perAddress: RateWindow, client: Client | undefined): Limit[] {
  const address = client && addressSubject(client.sourceIp);
  return address === undefined ? [perNumber] : [perNumber, { window: perAddress, subject: address }];
}

/** A known hotspot's budget per hour, cached for a minute per container (one GetItem a minute). */
const hotspotCache = new Map<string, { perHour: number | undefined; until: number }>();
async function hotspotBudget(nasId: string, fallback: number): Promise<number | undefined> {
  const now = clock.now();
  const cached = hotspotCache.get(nasId);
  if (cached && cached.until > now) return cached.perHour;
  const nas = await getNas(nasId);
  const perHour = nas ? (nas.otp_requests_per_hour ?? fallback) : undefined;
  if (hotspotCache.size > 10_000) hotspotCache.clear();
  hotspotCache.set(nasId, { perHour, until: now + 60_000 });
  return perHour;
}

/**
 * Whom a code request is budgeted against, besides its number. From a known hotspot with the
 * device's MAC: that device there (a sliding hour) and that hotspot (a clock hour, its own size):
 * every subscriber of a hotspot, and every hotspot behind an operator's gateway, shares one public
 * address, so the address says nothing about who asks. Otherwise the client address. A nas_id
 * that is no hotspot, or a MAC that is none, is budgeted per address: naming a hotspot buys
 * nothing unless it is real, and a flood of invented MACs at a real one stops at its budget.
 */
async function requestLimits(
  msisdn: string,
  client: Client | undefined,
): Promise<{ limits: Limit[]; budgets: Budget[] }> {
  const settings = authSettings();
  const perNumber: Limit = { window: OTP_WINDOW, subject: msisdn };
  const mac = macSubject(client?.clientMac);
  const perHour =
    client?.nasId && mac
      ? await hotspotBudget(client.nasId, settings.OTP_REQUESTS_PER_HOTSPOT_PER_HOUR)
      : undefined;
  if (client?.nasId && mac && perHour !== undefined) {
    return {
      limits: [
        perNumber,
        {
          window: {
            scope: 'OTP_DEVICE',
            limit: settings.OTP_REQUESTS_PER_DEVICE_PER_HOUR,
            windowMs: HOUR_MS,
          },
          subject: `${client.nasId}#${mac}`,
        },
      ],
      budgets: [{ window: { scope: 'OTP_NAS', limit: perHour, windowMs: HOUR_MS }, subject: client.nasId }],
    };
  }
  const limits = limitsOf(
    perNumber,
    { scope: 'OTP_ADDR', limit: settings.OTP_REQUESTS_PER_ADDRESS_PER_HOUR, windowMs: HOUR_MS },
    client,
  );
  return { limits, budgets: [] };
}

/**
 * The platform's hourly budget, split over `OTP_BUDGET_SHARDS` items (fewer when the budget is
 * smaller): shard i may count `limit / shards` codes (the remainder spread over the first
 * ones), so the shards together never pass the budget. A request counts on one shard picked at
 * random: at the modelled peak no item sits in every OTP transaction. Only when its shard is
 * full are all shards read, and one with room taken: the whole budget is spent before a refusal.
 */
function platformShards(): Budget[] {
  const { OTP_REQUESTS_PER_HOUR: limit, OTP_BUDGET_SHARDS } = authSettings();
  const count = Math.max(1, Math.min(OTP_BUDGET_SHARDS, limit));
  return Array.from({ length: count }, (_, i) => ({
    window: {
      scope: 'OTP_ALL',
      limit: Math.floor(limit / count) + (i < limit % count ? 1 : 0),
      windowMs: HOUR_MS,
    },
    subject: `S${i}`,
  }));
}

/**
 * How often a request reads again after losing a race: enough for every slot of its largest
 * limit to be taken by a parallel caller first, and then some.
 */
const attemptsFor = (limits: Limit[]): number => Math.max(...limits.map((l) => l.window.limit)) + 12;

const rateLimited = (retryAfterSeconds: number, message = 'Too many code requests, try again later') =>
  new AppError('ERR_RATE_LIMITED', message, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/**
 * Issues a code for an MSISDN and sends it by SMS. Known and unknown numbers get the same
 * answer: the account is created at the first request. Limits bound the SMS sent: per number
 * (3 a minute); per device and per hotspot when the portal names both (`requestLimits`), else
 * per client address; and for the whole platform (per clock hour, sharded). Their slots, the
 * account and the code are written in one transaction, so no limit is ever passed under
 * concurrency; a lost race reads again (bounded).
 */
export async function requestOtp(input: string, client?: Client): Promise<{ otp_token: string }> {
  const msisdn = requireMsisdn(input);
  const now = clock.now();
  const pepper = await getSecret('OTP_PEPPER');
  const code = generateCode();
  const otpToken = randomUUID();
  const { limits, budgets } = await requestLimits(msisdn, client);
  const shards = platformShards();
  let shard = shards[Math.floor(Math.random() * shards.length)] as Budget;

  for (let attempt = 0; attempt < attemptsFor(limits); attempt++) {
    const { planned, account } = await readLimitsAndAccount(limits, [...budgets, shard], msisdn, now);
    const refusedBy = refusedScopes(planned);
    if (refusedBy.length === 1 && refusedBy[0] === 'OTP_ALL') {
      // This shard is full: another with room, if any (the budget's last codes go one by one).
      const counts = await readBudgetCounts(shards, now);
      const open = shards.filter((s, i) => (counts[i] ?? 0) < s.window.limit);
      if (open.length) {
        shard = open[Math.floor(Math.random() * open.length)] as Budget;
        continue;
      }
    }
    const refused = refusal(planned);
    if (refused) {
      log.info('otp request refused', { msisdn: maskMsisdn(msisdn), by: refusedBy.join(',') });
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
      unverifiedTtl: Math.floor(now / 1000) + authSettings().UNVERIFIED_ACCOUNT_HOURS * 3600,
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
  options: { rememberDevice?: boolean } = {},
): Promise<{ session_token: string; subscriber_ref: string; expires_in: number; device_token?: string }> {
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
  const retention = {
    nowIso: clock.iso(now),
    ttl:
      state.role === 'subscriber'
        ? Math.floor(now / 1000) + authSettings().SUBSCRIBER_RETENTION_DAYS * 86_400
        : undefined,
  };
  if (!(await consumeOtp(msisdn, state.otpToken, failsAtMost, retention))) throw invalid();

  const ref = subscriberRef(msisdn);
  const { token } = await signSession(
    sessionClaims({
      sub: state.accountId,
      role: state.role,
      ref,
      resellerId: state.resellerId,
      agentId: state.agentId,
      tokenVersion: state.tokenVersion,
    }),
  );
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
  };
}
