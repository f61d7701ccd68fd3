// The table's stream consumers in a process of their own, as each is a Lambda function of its own in AWS.

/**
 * The table's stream consumers (functions/streams.ts) in a process of their own, as each is a
 * Lambda function of its own in AWS: `npm start` and the bench start it beside the API
 * (`startStreamConsumers` in ./streams.ts), so the API's CPU is the API's alone. It reads
 * DYNAMODB_ENDPOINT and TABLE_NAME from the environment it inherits, polls the stream every
 * LOCAL_STREAM_POLL_MS (200) while it is quiet, and over IPC answers `drain` once every record
 * written before the request has been handed over, and `usage` with the DynamoDB commands and
 * write units its consumers spent since the last `usage`.
 */
import './preamble.js';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { instrumentDdb } from '../../functions/core/ddb.js';
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

/**
 * The DynamoDB commands the consumers sent and the write units DynamoDB Local reported for them
 * (`ReturnConsumedCapacity` added to each), since the last `usage` message: what the bench
 * prints per exchange beside the API's.
 */
const usage = { calls: 0, writeUnits: 0 };
instrumentDdb(
  (next, context) => async (args) => {
    usage.calls += 1;
    const input = args.input as { ReturnConsumedCapacity?: string };
    input.ReturnConsumedCapacity ??= 'TOTAL';
    const write = /^(Put|Update|Delete)Item|^(TransactWrite|BatchWrite)Items/.test(
      (context as { commandName?: string }).commandName ?? '',
    );
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as {
      CapacityUnits?: number;
    }[];
    if (write) usage.writeUnits += list.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);
    return result;
  },
  { step: 'initialize', name: 'localUsage' },
);

process.on('message', (message: { kind: string; id?: number }) => {
  if (message.kind === 'usage') {
    process.send?.({ kind: 'usage', id: message.id, ...usage });
    usage.calls = 0;
    usage.writeUnits = 0;
    return;
  }
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
