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
