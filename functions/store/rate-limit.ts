// Sliding-window limiters and clock-hour budgets, each taken as a transaction item.

import { absentOrBelow, entity, exists, type TxItem } from './entity.js';

/**
 * Sliding-window limiter: at most `limit` events in any `windowMs`. The item holds one slot per
 * allowed event (`s0`..`s{limit-1}`, each the time it was taken). An event takes the oldest slot
 * if that slot is free or older than the window, by a conditional write on the value read, so
 * parallel callers can never take the same slot: exact under concurrency.
 */
export interface RateWindow {
  scope: string;
  limit: number;
  windowMs: number;
}

export type RatePlan =
  | { allowed: true; slot: number; taken: number | undefined }
  | { allowed: false; retryAfterSeconds: number };

/**
 * The limiter item: slot `s<i>` holds when it was last taken (epoch ms); `until`, when the
 * window of its last take ends (epoch ms): the item goes a minute after.
 */
export type RateSlots = { [slot: `s${number}`]: number } & { until?: number };

/** One limiter per scope (what is limited) and subject (whom it limits, e.g. an MSISDN). */
export const RateLimiter = entity<RateSlots>('rate_limit')({
  key: (r: { scope: string; subject: string }) => ({ pk: `RATE#${r.scope}#${r.subject}`, sk: 'RATE' }),
  ttl: (r) => (r.until === undefined ? undefined : Math.ceil(r.until / 1000) + 60),
  ttlFrom: ['until'],
});

/** Drops a limiter (its subject erased: a subscriber's number). False when there was none. */
// Access: DeleteItem pk=RATE#<scope>#<subject> (condition attribute_exists(pk)).
export const deleteLimiter = (scope: string, subject: string): Promise<boolean> =>
  RateLimiter.delete({ scope, subject }, exists);

/**
 * Which slot an event would take, given the limiter as read: one of the slots that is free or
 * older than the window, at random, so that parallel callers mostly take different slots rather
 * than all racing for the oldest one (each take is still conditioned on the value read). With
 * none free, the wait until the oldest frees. `random` is for tests.
 */
export function planToken(
  limiter: RateSlots | undefined,
  w: RateWindow,
  nowMs: number,
  random: () => number = Math.random,
): RatePlan {
  const slots = Array.from({ length: w.limit }, (_, i) => limiter?.[`s${i}`]);
  const free = slots.flatMap((taken, i) => (taken === undefined || taken <= nowMs - w.windowMs ? [i] : []));
  if (free.length) {
    const slot = free[Math.floor(random() * free.length)] ?? (free[0] as number);
    return { allowed: true, slot, taken: slots[slot] };
  }
  const oldest = Math.min(...(slots as number[]));
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + w.windowMs - nowMs) / 1000)) };
}

/**
 * The transaction item that takes the planned slot, conditioned on the slot's value as read.
 * The item expires a minute after the window it covers.
 */
export function takeSlotTx(
  w: RateWindow,
  subject: string,
  plan: { slot: number; taken: number | undefined },
  nowMs: number,
): TxItem {
  const slot = `s${plan.slot}` as const;
  return RateLimiter.tx.upsert(
    { scope: w.scope, subject },
    { set: { [slot]: nowMs, until: nowMs + w.windowMs } },
    plan.taken === undefined
      ? RateLimiter.where.lacks(slot)
      : RateLimiter.where.compare(slot, '=', plan.taken),
  );
}

/**
 * Fixed-window budget: at most `limit` events per clock window (e.g. per clock hour), one
 * counter item per window. Meant for limits too large for one slot per event (a platform-wide
 * budget of thousands); exact under concurrency, as a conditional ADD never passes the limit.
 * Across a window boundary up to twice the limit may fall within one `windowMs`.
 */
export interface BudgetWindow {
  scope: string;
  limit: number;
  windowMs: number;
}

export type BudgetPlan =
  | { allowed: true; windowStart: number }
  | { allowed: false; retryAfterSeconds: number };

/** The counter of one window: `n` events taken in it, and when the window ends (epoch ms). */
export type BudgetCount = { n?: number; ends_at?: number };

/** One counter per scope, subject (`ALL` for the platform) and window start (epoch ms). */
export const RateBudget = entity<BudgetCount>('rate_budget')({
  key: (b: { scope: string; subject: string; windowStart: number }) => ({
    pk: `BUDGET#${b.scope}#${b.subject}`,
    sk: `WINDOW#${b.windowStart}`,
  }),
  // An hour after its window ends.
  ttl: (b) => (b.ends_at === undefined ? undefined : Math.ceil(b.ends_at / 1000) + 3600),
  ttlFrom: ['ends_at'],
});

/** The start (epoch ms) of the window `nowMs` falls in. */
export const windowStartOf = (b: BudgetWindow, nowMs: number): number =>
  Math.floor(nowMs / b.windowMs) * b.windowMs;

/** Whether one more event fits the window's counter as read (pure). */
export function planBudget(counter: BudgetCount | undefined, b: BudgetWindow, nowMs: number): BudgetPlan {
  const windowStart = windowStartOf(b, nowMs);
  if ((counter?.n ?? 0) < b.limit) return { allowed: true, windowStart };
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((windowStart + b.windowMs - nowMs) / 1000)),
  };
}

/**
 * One more event on a window's counter, as the key, the upsert and its condition: the first
 * makes the item, which expires an hour after its window ends; refused once the window holds
 * `limit` events (a counter at its limit stays there).
 */
export const budgetStep = (b: BudgetWindow, subject: string, windowStart: number) =>
  [
    { scope: b.scope, subject, windowStart },
    { add: { n: 1 }, ifAbsent: { ends_at: windowStart + b.windowMs } },
    absentOrBelow('n', b.limit),
  ] as const;

/**
 * The transaction item that counts one event in the planned window, refused once the window
 * holds `limit` events. The item expires an hour after its window ends.
 */
export function takeBudgetTx(b: BudgetWindow, subject: string, windowStart: number): TxItem {
  return RateBudget.tx.upsert(...budgetStep(b, subject, windowStart));
}

/**
 * Gives back one event of a window's counter (a place taken only while an answer was decided):
 * never below zero, and nothing when the window's item is gone.
 */
// Access: UpdateItem BUDGET#<scope>#<subject> sk=WINDOW#<start> ADD n -1 (condition n > 0).
export const releaseBudget = (b: BudgetWindow, subject: string, windowStart: number): Promise<boolean> =>
  RateBudget.update(
    { scope: b.scope, subject, windowStart },
    { add: { n: -1 } },
    RateBudget.where.compare('n', '>', 0),
  );
