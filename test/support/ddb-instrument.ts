import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ddb, instrumentDdb } from '../../functions/core/ddb.js';

export interface DdbProbe {
  /** Commands sent since the last reset, by name (`GetItemCommand`, ...). */
  calls: string[];
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
      return next(args);
    },
    { step: 'initialize', name: 'ddbProbe' },
  );
  const probe: DdbProbe = {
    calls,
    reset: () => {
      calls.length = 0;
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
