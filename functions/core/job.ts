// A scheduled job's Lambda handler: its logs and metrics flushed, its failure logged and thrown.

import { endInvocation, log } from './log.js';

/**
 * A scheduled job's Lambda handler: runs `fn`, logs what it did, flushes what the invocation buffered (metrics). A
 * failure is logged and rethrown, so the schedule's retry and the Lambda error alarm see it.
 */
export function job<T extends Record<string, unknown>>(name: string, fn: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      const result = await fn();
      log.info(`${name} done`, result);
      return result;
    } catch (error) {
      log.error(`${name} failed`, {
        error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown',
      });
      throw error;
    } finally {
      await endInvocation();
    }
  };
}
