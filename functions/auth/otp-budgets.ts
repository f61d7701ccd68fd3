// Whom an SMS code request, or a verification without its otp_token, is budgeted against, and the refusal past a budget.

import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { canonicalIp } from '../core/ip.js';
import { countryOf } from '../core/phone.mjs';
import { routersSeenAt } from '../store/hotspot-addresses.js';
import { getNas } from '../store/nas.js';
import {
  type Budget,
  type Limit,
  type OtpState,
  readLimitsAndAccount,
  refusal,
  takeLimits,
} from '../store/otp.js';
import type { BudgetWindow, RateWindow } from '../store/rate-limit.js';
import { untilSettled } from '../store/retry.js';
import { getRouter, getRouterAddress } from '../store/routers.js';
import { OTP } from './otp.js';
import { addressSubject, authSettings, macSubject } from './settings.js';

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
export const FIRST_LOGIN_ONLY = new Set(['OTP_HOTSPOT_ADDR', 'OTP_BLOCK']);

/**
 * Whom a code request is budgeted against, besides its number (3 a minute). Never chosen by
 * what the caller writes: every request counts against its client address (an IPv4 address,
 * an IPv6 /64), `OTP_REQUESTS_PER_ADDRESS_PER_HOUR`, raised to a clock-hour budget of its own
 * (`OTP_REQUESTS_PER_HOTSPOT_PER_HOUR`, or the NAS record's) when a registered router sends
 * from that address; a `client_mac` from such an address adds a per-device limit there, never
 * lifts one. Then the destination: its block of 10,000 numbers and its country (sharded), per
 * clock hour. A `nas_id` in the body changes nothing: it names the hotspot the portal shows.
 */
export async function requestLimits(
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

export const pickOne = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/**
 * How often a request reads again after losing a race: enough for every slot of its largest
 * limit to be taken by a parallel caller first, and then some.
 */
export const attemptsFor = (limits: Limit[]): number => Math.max(...limits.map((l) => l.window.limit)) + 12;

export const rateLimited = (retryAfterSeconds: number, message = 'Too many code requests, try again later') =>
  new AppError('ERR_RATE_LIMITED', message, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/**
 * Takes a slot of the limits of verifications without `otp_token` (per number, per client
 * address), and answers the account as read with them. 429 once a limit is reached.
 */
export async function takeTokenlessSlot(
  msisdn: string,
  client: Client | undefined,
): Promise<OtpState | undefined> {
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
  return untilSettled(
    async () => {
      const { planned, account } = await readLimitsAndAccount(limits, [], msisdn, now);
      const refused = refusal(planned);
      if (refused) {
        throw rateLimited(
          refused.retryAfterSeconds,
          'Too many verifications without the otp_token of the request, try again later',
        );
      }
      // Its account as read, or none (undefined is "read again" to `untilSettled`).
      return (await takeLimits(planned, now)) ? { account } : undefined;
    },
    busyNumber,
    attemptsFor(limits),
  ).then((taken) => taken.account);
}

/** A number too busy to settle: the client tries again (503). */
export const busyNumber = (): never => {
  throw new AppError('ERR_UNAVAILABLE', 'Too much activity on this number, try again shortly', {
    headers: { 'Retry-After': '1' },
  });
};
