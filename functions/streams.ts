// THE stream consumers table: every consumer of the table's stream (handler, filter, batching, grants), which the stack and the local host loop over.

import type { RouteAccess } from './routes.js';

/**
 * Consumers of the table's DynamoDB stream, beside the jobs table (functions/jobs.ts) and like
 * it the one place they are declared: the CDK stack gives each a function, an event source
 * mapping with this filter, batching and retry, a dead-letter queue and alarms; the local host
 * (`npm start`, bin/local/stream-consumer.ts) polls DynamoDB Local's stream and hands the
 * same handler the same batches, filtered alike (bin/local/streams.ts).
 */
export interface StreamConsumer {
  /** Construct id in the stack, and the name the local poller prints. */
  name: string;
  /** Module under `functions/` (no extension) that exports `handler(DynamoDBStreamEvent)`. */
  handler: string;
  access: RouteAccess;
  summary: string;
  /**
   * Lambda's event filter: a record invokes the function only when it matches (AWS's filter
   * syntax: an object of lists of accepted values). Records that do not match are skipped and
   * cost nothing; the handler still checks what it is given.
   */
  filter: Record<string, unknown>;
  /** Most records in one invocation, and how long Lambda gathers them (at most 1 s here). */
  batchSize: number;
  maxBatchingWindowS: number;
  /** Attempts at a failing batch (split in halves on each error) before it goes to the DLQ. */
  retryAttempts: number;
  timeoutS?: number;
}

export const streamConsumers: readonly StreamConsumer[] = [
  {
    name: 'SessionCounts',
    handler: 'radius/session-counts',
    access: { table: 'write' },
    summary:
      "Count new RADIUS sessions (the open counters and the reseller's month) from the table's stream, several sessions a transaction",
    // A session item written with `uncounted` (its first report's Put, or a change that kept it):
    // about 50 a second at the modelled peak, out of every write of the table.
    filter: {
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { entity: { S: ['radius_session'] }, uncounted: { BOOL: [true] } } },
    },
    // 50 Starts/s and a 1 s window: about 50 sessions a batch, in 2 or 3 transactions.
    batchSize: 200,
    maxBatchingWindowS: 1,
    retryAttempts: 5,
    timeoutS: 30,
  },
  {
    name: 'CodeUsage',
    handler: 'radius/code-usage',
    access: { table: 'write' },
    summary:
      "Count RADIUS interims on their codes (used bytes, device lease, data limit) from the table's stream: an interim writes its session alone",
    // Every change of a session the stream counts: its interims (about 1,000 a second at the
    // modelled peak) and its closes.
    filter: {
      eventName: ['MODIFY'],
      dynamodb: { NewImage: { entity: { S: ['radius_session'] }, by_stream: { BOOL: [true] } } },
    },
    // A 1 s window: a code's several reports of a second are one write, the batch's codes one read.
    batchSize: 500,
    maxBatchingWindowS: 1,
    retryAttempts: 5,
    timeoutS: 60,
  },
];
