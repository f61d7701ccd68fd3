import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ddb, instrumentDdb } from '../../functions/core/ddb.js';

/** Capacity DynamoDB (Local) reports for a command: the table's and its indexes', write and read units. */
export interface Consumed {
  command: string;
  writeUnits: number;
  readUnits: number;
}

/** Commands that write (their ConsumedCapacity is write units), the rest read. */
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

/**
 * The capacity units of a response's (or a refused write's) `ConsumedCapacity`, one entry or a
 * list (transactions, batches): `CapacityUnits`, which is the table's plus its indexes'.
 */
function unitsOf(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((n, c: { CapacityUnits?: number }) => n + (c.CapacityUnits ?? 0), 0);
}

export interface DdbProbe {
  /** Commands sent since the last reset, by name (`GetItemCommand`, ...). */
  calls: string[];
  /**
   * The capacity each command consumed, as DynamoDB Local reports it (`ReturnConsumedCapacity:
   * INDEXES` is added to every command): a refused conditional write consumes its units too.
   */
  consumed: Consumed[];
  reset: () => void;
  /**
   * Makes the Nth command from now (1-based) fail with `error` (default: a throttling error),
   * optionally only counting commands whose name is in `only`.
   */
  failOn: (n: number, options?: { error?: Error; only?: string[] }) => void;
  /** Stops failing. */
  clearFaults: () => void;
}

const probes = new WeakMap<DynamoDBDocumentClient, DdbProbe>();

export function throttling(): Error {
  const error = new Error('Rate of requests exceeds the allowed throughput.');
  error.name = 'ProvisionedThroughputExceededException';
  (error as unknown as { $retryable: unknown }).$retryable = undefined;
  return error;
}

/**
 * Counts every DynamoDB command the functions send, and can make the Nth one fail: a
 * middleware on the shared client, the way the SDK itself is extended.
 */
export function probeDdb(): DdbProbe {
  const client = ddb();
  const existing = probes.get(client);
  if (existing) return existing;
  const calls: string[] = [];
  const consumed: Consumed[] = [];
  let fault: { remaining: number; error: Error; only?: string[] } | undefined;
  // On both clients (functions/core/ddb.ts): the store's item commands keep their cached stacks.
  instrumentDdb(
    (next, context) => async (args) => {
      const name = (context as { commandName?: string }).commandName ?? 'unknown';
      calls.push(name);
      if (fault && (!fault.only || fault.only.includes(name))) {
        fault.remaining -= 1;
        if (fault.remaining === 0) {
          const error = fault.error;
          fault = undefined;
          throw error;
        }
      }
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'INDEXES';
      const count = (c: unknown) => {
        const units = unitsOf(c);
        consumed.push({
          command: name,
          writeUnits: WRITES.has(name) ? units : 0,
          readUnits: WRITES.has(name) ? 0 : units,
        });
      };
      try {
        const result = await next(args);
        count((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
        return result;
      } catch (error) {
        count((error as { ConsumedCapacity?: unknown }).ConsumedCapacity);
        throw error;
      }
    },
    { step: 'initialize', name: 'ddbProbe' },
  );
  const probe: DdbProbe = {
    calls,
    consumed,
    reset: () => {
      calls.length = 0;
      consumed.length = 0;
    },
    failOn: (n, options = {}) => {
      fault = {
        remaining: n,
        error: options.error ?? throttling(),
        ...(options.only ? { only: options.only } : {}),
      };
    },
    clearFaults: () => {
      fault = undefined;
    },
  };
  probes.set(client, probe);
  return probe;
}
