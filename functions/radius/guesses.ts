// Wrong access codes counted per device, hotspot and address, so that codes cannot be guessed, and the refusal past a count.

import { log } from '../core/log.js';
import { raiseAlertOnce } from '../store/alerts.js';
import {
  type BudgetCount,
  type BudgetWindow,
  budgetStep,
  planBudget,
  RateBudget,
  windowStartOf,
} from '../store/rate-limit.js';

/**
 * Wrong access codes (unknown, or another reseller's) are counted so that codes cannot be
 * guessed, and so that a flood cannot switch a hotspot's logins off. Three kinds of counter, one
 * item per subject and window (no single hot item):
 * - `device`: one guessing device's own (RADIUS: the NAS and the device's Calling-Station-Id).
 *   Past its limit, every code from that device is refused, right ones included (an answer would
 *   tell a right guess from a wrong one): the refusal falls on the device that guessed.
 * - `shared`: a key several devices share (a client address at the portal, where a hotspot's
 *   subscribers sit behind one NAT; a NAS at RADIUS). Past its limit only wrong codes are refused
 *   ("too many tries"); a right code is read first and always gets in. Reaching the limit of one
 *   that names a hotspot raises an alert for its reseller.
 * - `watch`: refuses nothing; only counts, and alerts at its limit (the portal's wrong codes named
 *   at one hotspot: a stranger names any hotspot in the body, so it must not cost that hotspot).
 * Only wrong codes count; a right one costs nothing.
 */
export const DEVICE_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_DEVICE', limit: 20, windowMs: 10 * 60_000 };
export const NAS_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_NAS', limit: 200, windowMs: 10 * 60_000 };
/** The portal's public routes, per client address (an IPv4 address or an IPv6 /64) at one hotspot... */
export const ADDRESS_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_ADDR', limit: 20, windowMs: 10 * 60_000 };
/** ...and at all hotspots: naming one hotspot after another buys a guesser little. */
export const ADDRESS_ALL_GUESSES: BudgetWindow = {
  scope: 'CODE_GUESS_ADDR_ALL',
  limit: 200,
  windowMs: 10 * 60_000,
};
/** The portal's wrong codes named at one hotspot, whoever sent them: an alert, never a refusal. */
export const PORTAL_NAS_GUESSES: BudgetWindow = {
  scope: 'CODE_GUESS_PORTAL_NAS',
  limit: 200,
  windowMs: 10 * 60_000,
};

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

/** The counters of a code typed on the portal's public routes: the client address, and the hotspot named. */
export function portalCounters(nasId: string, address: string): GuessCounter[] {
  return [
    { window: ADDRESS_GUESSES, subject: `${nasId}/addr:${address}`, kind: 'shared' },
    { window: ADDRESS_ALL_GUESSES, subject: address, kind: 'shared' },
    { window: PORTAL_NAS_GUESSES, subject: nasId, kind: 'watch', alertSite: nasId, via: 'portal' },
  ];
}

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

/** A wrong code: refused as "too many tries" past a device's or a shared key's limit, else unknown. */
export const judgeWrong = (counters: GuessCounter[], counts: (BudgetCount | undefined)[], nowMs: number) =>
  refusedBy(counters, counts, ['device', 'shared'], nowMs);

/**
 * Counts one wrong code on every counter (each its own conditional ADD, `n < limit`: a counter
 * at its limit stays there). The counter that reaches the limit of a hotspot's key raises the
 * alert for its reseller. Never throws for an alert: the login's answer must not depend on it.
 */
// Access: UpdateItem BUDGET#<scope>#<subject> sk=WINDOW#<start> ADD n 1 (condition n < limit, ALL_NEW) per counter.
export async function countWrongGuess(counters: GuessCounter[], nowMs: number): Promise<void> {
  await Promise.all(
    counters.map(async (c) => {
      const windowStart = windowStartOf(c.window, nowMs);
      // Already at its limit: nothing more to count (undefined).
      const after = await RateBudget.upsertReturning(...budgetStep(c.window, c.subject, windowStart));
      if (c.alertSite && after?.n === c.window.limit) await alertFlood(c, nowMs);
    }),
  );
}

async function alertFlood(c: GuessCounter, nowMs: number): Promise<void> {
  const site = c.alertSite as string;
  try {
    await raiseAlertOnce(
      {
        type: GUESS_ALERT_TYPE,
        severity: 'P3',
        site,
        ts: new Date(nowMs).toISOString(),
        message: `${c.window.limit} wrong access codes in ${c.window.windowMs / 60_000} minutes at this hotspot (${c.via ?? 'RADIUS'}): someone is trying codes. Right codes still get in.`,
      },
      { reopenAfterMs: ALERT_EVERY_MS },
    );
    log.warn('wrong codes flood a hotspot', { nasId: site, via: c.via });
  } catch (error) {
    log.error('code guessing alert not stored', { nasId: site, error: (error as Error).name });
  }
}
