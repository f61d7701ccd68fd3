// Transactions with named items, a cancellation told by name, and the read-then-write retried until settled.

import { TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { itemClient } from '../core/ddb.js';
import type { TxItem } from './expressions.js';
import { wireInput } from './wire.js';

/**
 * A transaction DynamoDB cancelled, told by item NAME: `failed('nas')` is true when the item
 * named `nas` failed its condition. Adding an item to a transaction never shifts the blame.
 */
export class TransactionCancelled<N extends string = string> extends Error {
  readonly reasons: Readonly<Record<N, string>>;

  constructor(reasons: Record<N, string>, cause: unknown) {
    super(
      `transaction cancelled: ${Object.entries(reasons)
        .filter(([, r]) => r !== 'None')
        .map(([n, r]) => `${n}=${r}`)
        .join(', ')}`,
      { cause },
    );
    this.name = 'TransactionCancelled';
    this.reasons = reasons;
  }

  /** The named item's condition failed. */
  failed(name: N): boolean {
    return this.reasons[name] === 'ConditionalCheckFailed';
  }

  /** The names of the items whose condition failed. */
  get failedItems(): N[] {
    return (Object.keys(this.reasons) as N[]).filter((n) => this.failed(n));
  }

  /** Another transaction held one of the items: reading again and retrying may succeed. */
  get conflict(): boolean {
    return Object.values<string>(this.reasons).includes('TransactionConflict');
  }
}

/**
 * Runs a TransactWriteItems whose items are named. A cancellation is thrown as
 * `TransactionCancelled` with each name's reason; any other error as it came.
 */
export async function transact<N extends string>(items: Record<N, TxItem>): Promise<void> {
  const entries = Object.entries(items) as [N, TxItem][];
  try {
    await itemClient().send(
      new TransactWriteItemsCommand({
        TransactItems: entries.map(([, item]) =>
          Object.fromEntries(
            Object.entries(item).map(([action, input]) => [
              action,
              wireInput(input as Record<string, unknown>),
            ]),
          ),
        ),
      }),
    );
  } catch (error) {
    if ((error as { name?: string } | null)?.name !== 'TransactionCanceledException') throw error;
    const codes = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    const reasons = Object.fromEntries(
      entries.map(([name], i) => [name, codes[i]?.Code ?? 'None']),
    ) as Record<N, string>;
    throw new TransactionCancelled(reasons, error);
  }
}

/** The cancellation of `transact`, or undefined for any other error (which the caller rethrows). */
export function cancelled<N extends string>(error: unknown): TransactionCancelled<N> | undefined {
  return error instanceof TransactionCancelled ? (error as TransactionCancelled<N>) : undefined;
}

/**
 * Read-then-write against a guard: a transaction built on what was read names the item (or the
 * items) whose condition says "still as read". When DynamoDB cancels it because that item failed its
 * condition, or because another transaction held one of the items, the read went stale: the
 * answer is `false` (read again), not an error. Any other failure is thrown as it came.
 */
// Access: whatever the items grant (the caller's store functions built them).
export async function transactIfCurrent<N extends string>(
  items: Record<N, TxItem>,
  guard: NoInfer<N> | readonly NoInfer<N>[],
): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    const c = cancelled<N>(error);
    const guards: readonly N[] = typeof guard === 'string' ? [guard] : guard;
    if (c && (guards.some((g) => c.failed(g)) || c.conflict)) return false;
    throw error;
  }
}
