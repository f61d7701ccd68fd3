// The time source every function reads (tests move it), and the month an instant counts in.

/** The time source; tests replace it to move time without sleeping. */
let nowFn: () => number = () => Date.now();

export const clock = {
  /** Milliseconds since the epoch. */
  now: (): number => nowFn(),
  /** Whole seconds since the epoch (DynamoDB TTL unit). */
  nowSeconds: (): number => Math.floor(nowFn() / 1000),
  iso: (ms: number = nowFn()): string => new Date(ms).toISOString(),
  set: (fn: () => number): void => {
    nowFn = fn;
  },
  reset: (): void => {
    nowFn = () => Date.now();
  },
};

/** The calendar month (UTC, `YYYY-MM`) of an instant, epoch ms or ISO timestamp: revenue is kept by it. */
export const monthOf = (at: number | string): string =>
  (typeof at === 'string' ? at : new Date(at).toISOString()).slice(0, 7);
