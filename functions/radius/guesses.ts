import { batchGet, cancelled, transact } from '../store/entity.js';
import {
  type BudgetCount,
  type BudgetWindow,
  planBudget,
  RateBudget,
  takeBudgetTx,
  windowStartOf,
} from '../store/rate-limit.js';

/**
 * Wrong access codes (unknown, or another reseller's) are budgeted so that codes cannot be
 * guessed: per device (the NAS and the device's MAC for RADIUS; the NAS and the client's
 * address for the portal's check) and per NAS (a guesser changing MAC at every try). Only wrong
 * codes count; a right one costs nothing. Past either budget, every code from there is refused
 * until the window ends, right ones included (an answer would tell a right guess from a wrong
 * one). One counter item per device and one per NAS and window: no single hot item.
 */
export const DEVICE_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_DEVICE', limit: 20, windowMs: 10 * 60_000 };
export const NAS_GUESSES: BudgetWindow = { scope: 'CODE_GUESS_NAS', limit: 200, windowMs: 10 * 60_000 };

export type GuessGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Whether the device and its NAS may still try a code (one BatchGetItem). */
/** The gate's two reads, for a BatchGetItem (alone in `guessGate`, or with a login's own reads). */
export const guessReads = (nasId: string, device: string, nowMs: number) =>
  [
    [
      RateBudget,
      { scope: DEVICE_GUESSES.scope, subject: device, windowStart: windowStartOf(DEVICE_GUESSES, nowMs) },
    ],
    [
      RateBudget,
      { scope: NAS_GUESSES.scope, subject: nasId, windowStart: windowStartOf(NAS_GUESSES, nowMs) },
    ],
  ] as const;

/** The gate's answer from its two counters as read. */
export function judgeGuesses(
  byDevice: BudgetCount | undefined,
  byNas: BudgetCount | undefined,
  nowMs: number,
): GuessGate {
  for (const [counter, window] of [
    [byDevice, DEVICE_GUESSES],
    [byNas, NAS_GUESSES],
  ] as const) {
    const plan = planBudget(counter, window, nowMs);
    if (!plan.allowed) return plan;
  }
  return { allowed: true };
}

// Access: BatchGetItem BUDGET#CODE_GUESS_DEVICE#<nas>/<device> and BUDGET#CODE_GUESS_NAS#<nas>, current window.
export async function guessGate(nasId: string, device: string, nowMs: number): Promise<GuessGate> {
  const [byDevice, byNas] = await batchGet(guessReads(nasId, device, nowMs));
  return judgeGuesses(byDevice, byNas, nowMs);
}

// Access: UpdateItem x2 (each in its own transaction) ADD n, condition n < limit.
export async function countWrongGuess(nasId: string, device: string, nowMs: number): Promise<void> {
  const take = async (window: BudgetWindow, subject: string) => {
    try {
      await transact({ budget: takeBudgetTx(window, subject, windowStartOf(window, nowMs)) });
    } catch (error) {
      // Already at its limit: the next try is refused anyway.
      if (!cancelled(error)) throw error;
    }
  };
  await Promise.all([take(DEVICE_GUESSES, device), take(NAS_GUESSES, nasId)]);
}
