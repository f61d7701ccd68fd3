import { cancelled, type TxItem, transact } from './entity.js';

/**
 * Read-then-write against a guard: a transaction built on what was read names the item whose
 * condition says "still as read". When DynamoDB cancels it because that item failed its
 * condition, or because another transaction held one of the items, the read went stale: the
 * answer is `false` (read again), not an error. Any other failure is thrown as it came.
 */
// Access: whatever the items grant (the caller's store functions built them).
export async function transactIfCurrent<N extends string>(
  items: Record<N, TxItem>,
  guard: NoInfer<N>,
): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    const c = cancelled<N>(error);
    if (c && (c.failed(guard) || c.conflict)) return false;
    throw error;
  }
}

/**
 * Runs a read-then-write step until it settles: `step` answers its result, or `undefined` when
 * its read went stale (see `transactIfCurrent`) and it is worth reading again. After `attempts`
 * stale reads in a row the item is too busy to settle: `failure` is thrown (a 5xx the caller's
 * retry covers: a NAS resends its report).
 */
export async function untilSettled<T>(
  step: () => Promise<T | undefined>,
  failure: string,
  attempts = 6,
): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const result = await step();
    if (result !== undefined) return result;
  }
  throw new Error(failure);
}
