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
