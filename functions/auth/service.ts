import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { canonicalIp } from '../core/ip.js';
import { log, maskMsisdn } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { countryOf } from '../core/phone.mjs';
import { sessionClaims } from '../core/principal.js';
import { getSecret } from '../core/secrets.js';
import { sendSms } from '../core/sms.js';
import { routersSeenAt } from '../store/hotspot-addresses.js';
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
import type { BudgetWindow, RateWindow } from '../store/rate-limit.js';
import { getRouter, getRouterAddress } from '../store/routers.js';
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

/**
 * The hourly budget of a client address that a registered, active router sends from (its
 * hotspot's public address, shared by every subscriber there): a UDP router registered at it,
 * or any router whose RADIUS came from it within the day (functions/store/hotspot-addresses.ts);
 * the largest of their hotspots' own budgets. Undefined for any other address. Cached a minute
 * per container.
 */
const hotspotAddressCache = new Map<string, { perHour: number | undefined; until: number }>();
async function hotspotAddressBudget(
  sourceIp: string,
  address: string,
  fallback: number,
): Promise<number | undefined> {
  const now = clock.now();
  const cached = hotspotAddressCache.get(address);
  if (cached && cached.until > now) return cached.perHour;
  const canonical = canonicalIp(sourceIp);
  const [claim, seen] = await Promise.all([
    canonical ? getRouterAddress(canonical) : undefined,
    routersSeenAt(address, now),
  ]);
  // An address its reseller keeps with no router there (revoked) names no router.
  const ids = [...new Set([...(claim?.router_id ? [claim.router_id] : []), ...seen])].slice(0, 10);
  const routers = (await Promise.all(ids.map((id) => getRouter(id)))).filter((r) => r?.status === 'active');
  const nasIds = [...new Set(routers.flatMap((r) => r?.nas_ids ?? []))].slice(0, 50);
  let perHour: number | undefined;
  if (routers.length) {
    const own = (await Promise.all(nasIds.map((id) => getNas(id)))).map(
      (n) => n?.otp_requests_per_hour ?? fallback,
    );
    perHour = own.length ? Math.max(...own) : fallback;
  }
  if (hotspotAddressCache.size > 10_000) hotspotAddressCache.clear();
  hotspotAddressCache.set(address, { perHour, until: now + 60_000 });
  return perHour;
}

/**
 * Budgets that bind only numbers never verified: a stranger who empties one at a hotspot, or
 * sprays a range, denies first logins there, never a returning subscriber.
 */
const FIRST_LOGIN_ONLY = new Set(['OTP_HOTSPOT_ADDR', 'OTP_BLOCK']);

/**
 * Whom a code request is budgeted against, besides its number (3 a minute). Never chosen by
 * what the caller writes: every request counts against its client address (an IPv4 address,
 * an IPv6 /64), `OTP_REQUESTS_PER_ADDRESS_PER_HOUR`, raised to a clock-hour budget of its own
 * (`OTP_REQUESTS_PER_HOTSPOT_PER_HOUR`, or the NAS record's) when a registered router sends
 * from that address; a `client_mac` from such an address adds a per-device limit there, never
 * lifts one. Then the destination: its block of 10,000 numbers and its country (sharded), per
 * clock hour. A `nas_id` in the body changes nothing: it names the hotspot the portal shows.
 */
async function requestLimits(
  msisdn: string,
  client: Client | undefined,
): Promise<{ limits: Limit[]; budgets: Budget[]; sharded: Budget[][] }> {
  const settings = authSettings();
  const hour = (scope: string, limit: number): BudgetWindow => ({ scope, limit, windowMs: HOUR_MS });
  const limits: Limit[] = [{ window: OTP_WINDOW, subject: msisdn }];
  const budgets: Budget[] = [
    { window: hour('OTP_BLOCK', settings.OTP_REQUESTS_PER_BLOCK_PER_HOUR), subject: msisdn.slice(0, -4) },
  ];
  const address = addressSubject(client?.sourceIp);
  if (address !== undefined) {
    const perHour = client?.sourceIp
      ? await hotspotAddressBudget(client.sourceIp, address, settings.OTP_REQUESTS_PER_HOTSPOT_PER_HOUR)
      : undefined;
    if (perHour === undefined) {
      limits.push({
        window: { scope: 'OTP_ADDR', limit: settings.OTP_REQUESTS_PER_ADDRESS_PER_HOUR, windowMs: HOUR_MS },
        subject: address,
      });
    } else {
      budgets.push({ window: hour('OTP_HOTSPOT_ADDR', perHour), subject: address });
      const mac = macSubject(client?.clientMac);
      if (mac)
        limits.push({
          window: {
            scope: 'OTP_DEVICE',
            limit: settings.OTP_REQUESTS_PER_DEVICE_PER_HOUR,
            windowMs: HOUR_MS,
          },
          subject: `${address}#${mac}`,
        });
    }
  }
  return {
    limits,
    budgets,
    sharded: [
      shardsOf('OTP_ALL', 'S', settings.OTP_REQUESTS_PER_HOUR),
      shardsOf('OTP_COUNTRY', `${countryOf(msisdn)}#S`, settings.OTP_REQUESTS_PER_COUNTRY_PER_HOUR),
    ],
  };
}

/**
 * A large hourly budget (the platform's, a country's) split over `OTP_BUDGET_SHARDS` items
 * (fewer when the budget is smaller): shard i may count `limit / shards` codes (the remainder
 * spread over the first ones), so the shards together never pass the budget. A request counts
 * on one shard picked at random: at the modelled peak no item sits in every OTP transaction.
 * Only when its shard is full are all shards read, and one with room taken: the whole budget is
 * spent before a refusal.
 */
function shardsOf(scope: string, prefix: string, limit: number): Budget[] {
  const count = Math.max(1, Math.min(authSettings().OTP_BUDGET_SHARDS, limit));
  return Array.from({ length: count }, (_, i) => ({
    window: { scope, limit: Math.floor(limit / count) + (i < limit % count ? 1 : 0), windowMs: HOUR_MS },
    subject: `${prefix}${i}`,
  }));
}

const pickOne = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)] as T;

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

  for (let attempt = 0; attempt < attemptsFor(limits); attempt++) {
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
      if (moved) continue;
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
  !!s?.otpToken && !!s.codeHash && !s.used && (s.fails ?? 0) < s.guesses;

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
