// The one retry of a read-then-write that lost a race: read again, after one full-jitter back-off.

/**
 * The one read-then-write retry of the code base. A step reads, decides and writes conditioned on
 * what it read (`transactIfCurrent`, a conditional update); it answers its result, or
 * `undefined` when its read went stale (another writer got there first) and reading again may
 * settle it. The first retry reads again at once (most races are two requests a few
 * milliseconds apart); each later one waits a full-jittered back-off first, over a window that
 * doubles from 20 ms up to 2 s, so that writers racing for one item spread out instead of
 * colliding again in step. After `attempts` stale reads in a row the item is too busy to settle:
 * `failure` is thrown (a string: an Error the caller's retry covers, a 5xx, a NAS resending), or
 * answered (a function: the caller's own answer, such as a refusal).
 */
export async function untilSettled<T>(
  step: (attempt: number) => Promise<T | undefined>,
  failure: string | (() => T),
  attempts = 6,
): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 1) await backOff(attempt);
    const result = await step(attempt);
    if (result !== undefined) return result;
  }
  if (typeof failure === 'function') return failure();
  throw new Error(failure);
}

/** Full jitter over 10 ms x 2^attempt, at most 2 s (attempt 2: up to 40 ms; 6: up to 640 ms). */
const backOff = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.random() * Math.min(2000, 10 * 2 ** attempt)));
