import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { type StreamReader, streamReader } from '../../bin/local/streams.js';
import { streamConsumers } from '../../functions/streams.js';

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

/** One reader per table and consumer, kept for the file: each drain goes on where the last stopped. */
const readers = new Map<string, StreamReader>();

/**
 * Hands every record of the current test table's stream (a table created with `streams: true`:
 * test/support/db.ts) written so far to the stream consumers
 * of functions/streams.ts, in this process, as Lambda (or `npm start`'s poller) would: what a test
 * that calls `account()` in-process does before it reads a count the consumer keeps.
 */
export async function drainStreams(): Promise<void> {
  const table = process.env.TABLE_NAME as string;
  for (const consumer of streamConsumers) {
    const key = `${table}/${consumer.name}`;
    let reader = readers.get(key);
    if (!reader) {
      const module = new URL(`../../functions/${consumer.handler}.ts`, import.meta.url).href;
      const { handler } = (await import(module)) as { handler: Handler };
      reader = streamReader({
        endpoint: process.env.DYNAMODB_ENDPOINT as string,
        table,
        consumer,
        handler,
      });
      readers.set(key, reader);
    }
    await reader.drain();
  }
}

/**
 * Waits until `check` holds (it throws or answers false meanwhile), polling every 50 ms, for at
 * most `timeoutMs`: a count kept by a stream consumer that runs beside the stack (the edge
 * stack's poller) is read until it is there; the last failure is thrown.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const result = await check();
      if (result !== false) return result;
      if (Date.now() > deadline) throw new Error('eventually: still false');
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
