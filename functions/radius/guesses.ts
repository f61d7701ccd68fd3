// Wrong access codes counted per device, hotspot and address within declared guess budgets, and the refusal past a budget.

import { AppError } from '../core/errors.js';
import { log } from '../core/log.js';
import type { AccessCode } from '../store/access-codes.js';
import { raiseAlertOnce } from '../store/alerts.js';
import { batchGet } from '../store/entity.js';
import { holdsLoginPass } from '../store/login-passes.js';
import {
  type BudgetCount,
  type BudgetWindow,
  budgetStep,
  planBudget,
  RateBudget,
  releaseBudget,
  windowStartOf,
} from '../store/rate-limit.js';
import { endedSessionsOfCode } from '../store/session-reads.js';
import type { Refusal } from './attributes.js';

/**
 * Wrong access codes (unknown, or another reseller's) are counted so that codes cannot be
 * guessed, and so that a flood cannot switch a hotspot's logins off. Three kinds of counter, one
 * item per subject and window (no single hot item):
 * - `device`: one guessing caller's own (RADIUS: the NAS and the device's Calling-Station-Id; a
 *   subscriber's account for the routes that take a code with a session token). Past its limit
 *   every code from that caller gets the refusal, right ones included: the refusal falls on the
 *   caller that guessed.
 * - `shared`: a key several callers share (a client address at the portal, where a hotspot's
 *   subscribers sit behind one NAT; a NAS at RADIUS). Past its limit no code a guess could find
 *   is answered on its merits (below); a code the request proves more than the code for is.
 *   Reaching the limit of one that names a hotspot raises an alert for its reseller.
 * - `watch`: refuses nothing; only counts, and alerts at its limit (the portal's wrong codes named
 *   at one hotspot: a stranger names any hotspot in the body, so it must not cost that hotspot).
 *
 * What a typed code is, for these budgets (`Finding`):
 * - `miss`: nothing the caller may learn of (unknown, another reseller's; on the anonymous portal
 *   routes also a printed card never used). Counted on every counter (a conditional ADD that
 *   stops at the limit); answered as unknown only when every refusing counter took it, else with
 *   the refusal the budget gives.
 * - `hit`: a code a guess could have found. Answered on its merits only when every refusing
 *   counter has a free place, taken by a conditional ADD before the answer and given back after:
 *   so a right code costs nothing, yet no right code is answered past a budget, even among
 *   parallel guesses that all read the counters below their limits.
 * - `proven`: the request proves more than the code (at RADIUS: a device the code has seen, a
 *   device its buyer proved on the portal with a login pass, or a code delivered to its buyer,
 *   not printed: 31^10 codes). Answered on its merits past a shared counter's limit, so that no
 *   flood switches a hotspot's logins off; only a `device` counter past its limit refuses it.
 * Past a budget the answer is the same whatever the code: that is what makes it no oracle.
 */
const DEVICE_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_DEVICE', limit: 20, windowMs: 10 * 60_000 };
const NAS_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_NAS', limit: 200, windowMs: 10 * 60_000 };
/** The portal's public routes, per client address (an IPv4 address or an IPv6 /64) at one hotspot... */
const ADDRESS_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_ADDR', limit: 20, windowMs: 10 * 60_000 };
/** ...and at all hotspots: naming one hotspot after another buys a guesser little. */
const ADDRESS_ALL_GUESSES: BudgetWindow = {
  scope: 'CODE_GUESS_ADDR_ALL',
  limit: 200,
  windowMs: 10 * 60_000,
};
/** The portal's wrong codes named at one hotspot, whoever sent them: an alert, never a refusal. */
const PORTAL_NAS_GUESSES: BudgetWindow = {
  scope: 'CODE_GUESS_PORTAL_NAS',
  limit: 200,
  windowMs: 10 * 60_000,
};
/**
 * A subscriber's account, on the routes that take a code with its session token (a voucher's
 * redemption, the code a payment tops up): an account is a verified number, which a guesser
 * pays for, so its budget is its own.
 */
const ACCOUNT_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_ACCOUNT', limit: 10, windowMs: 3_600_000 };

/** Every guess budget, by the counter it sizes (docs/security.md's odds are computed from them). */
export const GUESS_BUDGETS = {
  device: DEVICE_GUESSES,
  nas: NAS_GUESSES,
  address: ADDRESS_GUESSES,
  addressAll: ADDRESS_ALL_GUESSES,
  portalNas: PORTAL_NAS_GUESSES,
  account: ACCOUNT_GUESSES,
} as const;

/** The alert a hotspot's reseller gets when wrong codes flood it (GET /api/v1/alerts). */
export const GUESS_ALERT_TYPE = 'CODE_GUESSING';
/** At most one such alert per hotspot and hour while the flood lasts. */
const ALERT_EVERY_MS = 3_600_000;

export type GuessKind = 'device' | 'shared' | 'watch';

export interface GuessCounter {
  window: BudgetWindow;
  subject: string;
  kind: GuessKind;
  /** The hotspot (NAS id) whose reseller is alerted when this counter reaches its limit. */
  alertSite?: string;
  /** Where the wrong codes came from, for the alert's text. */
  via?: 'RADIUS' | 'portal';
}

/** The counters of a RADIUS login: its device (a shared key when the NAS sent no MAC) and its NAS. */
export function radiusCounters(nasId: string, device: string, hasMac: boolean): GuessCounter[] {
  return [
    { window: DEVICE_GUESSES, subject: device, kind: hasMac ? 'device' : 'shared' },
    { window: NAS_GUESSES, subject: nasId, kind: 'shared', alertSite: nasId, via: 'RADIUS' },
  ];
}

/**
 * The hotspot's RADIUS count, as the portal reads it (never spends it: a stranger names any
 * hotspot): spent, a printed card gets in there, on a device it was not used on, only with a
 * login pass, and the portal says so before the buyer goes to the router.
 */
export const hotspotCount = (nasId: string): GuessCounter => ({
  window: NAS_GUESSES,
  subject: nasId,
  kind: 'watch',
});
export const flooded = (count: BudgetCount | undefined, nowMs: number): boolean =>
  !planBudget(count, NAS_GUESSES, nowMs).allowed;

/** The counters of a code typed on the portal's public routes: the client address, and the hotspot named. */
export function portalCounters(nasId: string, address: string): GuessCounter[] {
  return [
    { window: ADDRESS_GUESSES, subject: `${nasId}/addr:${address}`, kind: 'shared' },
    { window: ADDRESS_ALL_GUESSES, subject: address, kind: 'shared' },
    { window: PORTAL_NAS_GUESSES, subject: nasId, kind: 'watch', alertSite: nasId, via: 'portal' },
  ];
}

export type Finding = 'miss' | 'hit' | 'proven';
export type GuessGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The counters' reads, for a BatchGetItem (with a login's own reads). */
// Access: BatchGetItem BUDGET#<scope>#<subject> sk=WINDOW#<start> per counter, current window.
export const guessReads = (counters: GuessCounter[], nowMs: number) =>
  counters.map(
    (c) =>
      [
        RateBudget,
        { scope: c.window.scope, subject: c.subject, windowStart: windowStartOf(c.window, nowMs) },
      ] as const,
  );

/** The first refusal among the counters of `kinds`, as read. */
function refusedBy(
  counters: GuessCounter[],
  counts: (BudgetCount | undefined)[],
  kinds: GuessKind[],
  nowMs: number,
): GuessGate {
  for (const [i, c] of counters.entries()) {
    if (!kinds.includes(c.kind)) continue;
    const plan = planBudget(counts[i], c.window, nowMs);
    if (!plan.allowed) return plan;
  }
  return { allowed: true };
}

/** Before the code is decided: only a guessing device past its own limit is refused. */
export const judgeDevice = (counters: GuessCounter[], counts: (BudgetCount | undefined)[], nowMs: number) =>
  refusedBy(counters, counts, ['device'], nowMs);

/** The refusal once a counter was full at the write: the wait until its window ends. */
const fullAt = (c: GuessCounter, nowMs: number): GuessGate => ({
  allowed: false,
  retryAfterSeconds: Math.max(
    1,
    Math.ceil((windowStartOf(c.window, nowMs) + c.window.windowMs - nowMs) / 1000),
  ),
});

/**
 * Where the counters' places are taken: the table's (`TABLE_PLACES`), or an in-country edge's
 * memory during a cut (functions/edge-service/replica-store.ts), under the same rules.
 */
export interface GuessPlaces {
  /** One place in the counter's current window (a conditional ADD below its limit); undefined: full. */
  take(c: GuessCounter, nowMs: number): Promise<BudgetCount | undefined>;
  /** A hit's place given back; never throws. */
  giveBack(c: GuessCounter, nowMs: number): Promise<void>;
  /** Whether `device` used `code` in one of its last ended sessions. */
  usedBy(code: string, device: string, nowMs: number): Promise<boolean>;
  /** Whether `device` holds a login pass for `code` (functions/store/login-passes.ts). */
  passed(code: string, device: string, nowMs: number): Promise<boolean>;
  /** A hotspot's counter reached its limit: its reseller is told; never throws. */
  flood(c: GuessCounter, nowMs: number): Promise<void>;
}

/**
 * Whether a typed code, found to be `finding`, gets its own answer (`allowed`) or the budget's
 * refusal, the same for every code (see the kinds and findings above). `counts` are the
 * counters as read with the code (`guessReads`). Counts a miss; takes and gives back a place for
 * a hit. Never throws for an alert.
 */
export async function gateGuess(
  counters: GuessCounter[],
  counts: (BudgetCount | undefined)[],
  nowMs: number,
  finding: Finding,
  places: GuessPlaces = TABLE_PLACES,
): Promise<GuessGate> {
  const device = refusedBy(counters, counts, ['device'], nowMs);
  if (finding === 'miss') {
    // Counted even past a limit as read (a device's own count goes on while its NAS is full).
    const counted = await countWrongGuess(counters, nowMs, places);
    if (!device.allowed) return device;
    const read = refusedBy(counters, counts, ['shared'], nowMs);
    return read.allowed ? counted : read;
  }
  if (!device.allowed || finding === 'proven') return device;
  const read = refusedBy(counters, counts, ['shared'], nowMs);
  if (!read.allowed) return read;
  const refusing = counters.filter((c) => c.kind !== 'watch');
  const taken = await Promise.all(refusing.map((c) => places.take(c, nowMs)));
  await Promise.all(refusing.map((c, i) => (taken[i] ? places.giveBack(c, nowMs) : undefined)));
  const full = refusing.find((_, i) => !taken[i]);
  return full ? fullAt(full, nowMs) : { allowed: true };
}

// Access: UpdateItem BUDGET#<scope>#<subject> sk=WINDOW#<start> ADD n 1 (condition n < limit, ALL_NEW).
const takePlace = (c: GuessCounter, nowMs: number) =>
  RateBudget.upsertReturning(...budgetStep(c.window, c.subject, windowStartOf(c.window, nowMs)));

/** Gives a hit's place back; never throws (a place left taken only makes the budget stricter). */
async function giveBack(c: GuessCounter, nowMs: number): Promise<void> {
  try {
    await releaseBudget(c.window, c.subject, windowStartOf(c.window, nowMs));
  } catch (error) {
    log.warn('guess budget place not given back', { scope: c.window.scope, error: (error as Error).name });
  }
}

/**
 * Counts one wrong code on every counter (each its own conditional ADD, `n < limit`: a counter
 * at its limit stays there); refused when a refusing counter was full. The counter that reaches
 * the limit of a hotspot's key raises the alert for its reseller. Never throws for an alert: the
 * answer must not depend on it.
 */
// Access: UpdateItem BUDGET#<scope>#<subject> sk=WINDOW#<start> ADD n 1 (condition n < limit, ALL_NEW) per counter.
async function countWrongGuess(
  counters: GuessCounter[],
  nowMs: number,
  places: GuessPlaces,
): Promise<GuessGate> {
  const after = await Promise.all(
    counters.map(async (c) => {
      // Already at its limit: nothing more to count (undefined).
      const counted = await places.take(c, nowMs);
      if (c.alertSite && counted?.n === c.window.limit) await places.flood(c, nowMs);
      return counted;
    }),
  );
  const full = counters.find((c, i) => c.kind !== 'watch' && !after[i]);
  return full ? fullAt(full, nowMs) : { allowed: true };
}

/** How many of a card's last ended sessions are read to find a device that used it. */
const SEEN_SESSIONS = 20;

/**
 * The guess budgets' say on a RADIUS login by a typed code, as decided (`refused`, or nothing
 * for an accept); `undefined` when the request is nothing a guess is about (one the API cannot
 * use). A refusal that names the code unknown is a miss. A printed card (a voucher) is a hit
 * unless this device is proven for it: a card never used, or used by other devices only, is what
 * a guesser changing MAC would find. A code delivered to its buyer (a payment's, an agent's
 * sale: 10 characters drawn at random, 31^10) and a card on a device proven for it are proven,
 * so a flood never stops the subscribers who hold them. A device is proven for a card when it
 * holds a lease on it, or a login pass (functions/store/login-passes.ts: its buyer, signed in on
 * the portal, typed it there within its account's budget), or, read only once the hotspot's
 * count is spent, when one of the card's last ended sessions (30 days) was its. A pass is read
 * for every login of a card on a device that holds no lease on it (one GetItem; a wrong code
 * reads none), so a buyer holding one never meets the count, even one filled in parallel.
 */
export async function gateLogin(
  counters: GuessCounter[],
  counts: (BudgetCount | undefined)[],
  nowMs: number,
  login: { code: AccessCode | undefined; refused: Refusal | undefined; device: string },
  places: GuessPlaces = TABLE_PLACES,
): Promise<GuessGate | undefined> {
  const { code, refused, device } = login;
  if (refused === 'unknown_code' || refused === 'wrong_hotspot')
    return gateGuess(counters, counts, nowMs, 'miss', places);
  if (!code) return undefined;
  if (code.source !== 'voucher' || (code.started_at && device in (code.devices ?? {})))
    return gateGuess(counters, counts, nowMs, 'proven', places);
  const spent = !refusedBy(counters, counts, ['shared'], nowMs).allowed;
  const [passed, seen] = await Promise.all([
    places.passed(code.code, device, nowMs),
    spent && code.started_at !== undefined ? places.usedBy(code.code, device, nowMs) : false,
  ]);
  return gateGuess(counters, counts, nowMs, passed || seen ? 'proven' : 'hit', places);
}

/** The table's places: the budget items of functions/store/rate-limit.ts. */
const TABLE_PLACES: GuessPlaces = {
  take: (c, nowMs) => takePlace(c, nowMs),
  giveBack,
  usedBy: async (code, device, nowMs) =>
    (await endedSessionsOfCode(code, nowMs, SEEN_SESSIONS)).some((s) => s.device === device),
  passed: holdsLoginPass,
  flood: alertFlood,
};

/**
 * A code a subscriber typed with its session token (a voucher to redeem, a code to top up), found
 * to be `finding`, behind its account's budget: past it, 429 ERR_RATE_LIMITED with Retry-After
 * for every code, right ones too (the refusal falls on the account that guessed).
 */
// Access: GetItem BUDGET#CODE_GUESS_ACCOUNT#<sub> sk=WINDOW#<start> (consistent), then as gateGuess.
export async function gateAccountGuess(subscriberId: string, nowMs: number, finding: Finding): Promise<void> {
  const counters: GuessCounter[] = [{ window: ACCOUNT_GUESSES, subject: subscriberId, kind: 'device' }];
  const counts = await batchGet(guessReads(counters, nowMs), { consistent: true });
  const gate = await gateGuess(counters, counts, nowMs, finding);
  if (!gate.allowed)
    throw new AppError('ERR_RATE_LIMITED', 'Too many wrong codes, try again later', {
      headers: { 'Retry-After': String(gate.retryAfterSeconds) },
    });
}

/** A printed card nobody has logged in with yet: the anonymous portal routes never confirm one. */
export const neverUsedCard = (code: AccessCode): boolean => code.source === 'voucher' && !code.started_at;

/** What a flood changes, said to the reseller in its alert. */
const FLOOD_EFFECT = {
  RADIUS:
    "Paid codes and cards already used on a device still log in; until the flood stops, a printed card gets in on a device it has not been used on only through the portal, once its buyer confirms a phone number by SMS (typed on the router's own page, it waits for the flood's end).",
  portal: 'Nothing is refused for it: the portal stops confirming codes to the addresses that guess.',
} as const;

async function alertFlood(c: GuessCounter, nowMs: number): Promise<void> {
  const site = c.alertSite as string;
  try {
    await raiseAlertOnce(
      {
        type: GUESS_ALERT_TYPE,
        severity: 'P3',
        site,
        ts: new Date(nowMs).toISOString(),
        message: `${c.window.limit} wrong access codes in ${c.window.windowMs / 60_000} minutes at this hotspot (${c.via ?? 'RADIUS'}): someone is trying codes. ${FLOOD_EFFECT[c.via ?? 'RADIUS']}`,
      },
      { reopenAfterMs: ALERT_EVERY_MS },
    );
    log.warn('wrong codes flood a hotspot', { nasId: site, via: c.via });
  } catch (error) {
    log.error('code guessing alert not stored', { nasId: site, error: (error as Error).name });
  }
}
