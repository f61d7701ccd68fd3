/**
 * The table's stream consumers (functions/streams.ts) in a process of their own, as each is a
 * Lambda function of its own in AWS: `npm start` and the bench start it beside the API
 * (`startStreamConsumers` in ./streams.ts), so the API's CPU is the API's alone. It reads
 * DYNAMODB_ENDPOINT and TABLE_NAME from the environment it inherits, polls the stream every
 * LOCAL_STREAM_POLL_MS (200) while it is quiet, and over IPC answers `drain` once every record
 * written before the request has been handed over.
 */
import './preamble.js';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { streamConsumers } from '../../functions/streams.js';
import { pollForever, type StreamReader, streamReader } from './streams.js';

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const endpoint = process.env.DYNAMODB_ENDPOINT as string;
const table = process.env.TABLE_NAME as string;
const intervalMs = Number(process.env.LOCAL_STREAM_POLL_MS || 200);
const report = (line: string) => process.stderr.write(`${line}\n`);

const readers: StreamReader[] = [];
const loops: { stop: () => Promise<void> }[] = [];
for (const consumer of streamConsumers) {
  const module = new URL(`../../functions/${consumer.handler}.ts`, import.meta.url).href;
  const { handler } = (await import(module)) as { handler: Handler };
  const reader = streamReader({ endpoint, table, consumer, handler, report });
  readers.push(reader);
  loops.push(pollForever(reader, intervalMs, (line) => report(`[${consumer.name}] ${line}`)));
}

process.on('message', (message: { kind: string; id?: number }) => {
  if (message.kind !== 'drain') return;
  void Promise.all(readers.map((r) => r.drain())).then(
    () => process.send?.({ kind: 'drained', id: message.id }),
    (error: unknown) => process.send?.({ kind: 'drained', id: message.id, error: (error as Error).message }),
  );
});
const stop = () => void Promise.all(loops.map((l) => l.stop())).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
process.send?.({ kind: 'ready' });
