// What Lambda's event source mapping does for a stream consumer, done against DynamoDB Local's stream.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamConsumer } from '../../functions/streams.js';
import { type LocalProcess, supervise } from './child.js';

/**
 * What Lambda's event source mapping does for a stream consumer in AWS, done against DynamoDB
 * Local's stream (ListStreams, DescribeStream, GetShardIterator, GetRecords): every shard read in
 * order from its oldest record (a child shard once its parent is read to its end), the records
 * that match the consumer's filter handed to its handler as Lambda's DynamoDBStreamEvent, at most
 * `batchSize` a batch. A batch the handler answers with item failures (or throws on) is read
 * again from the first failure, `retryAttempts` times, then logged and passed, as Lambda sends
 * it to the dead-letter queue. So the handler sees what it sees in AWS: records at least once.
 */
export interface StreamReader {
  /** Reads every shard once; the number of records read (matching or not). */
  poll: () => Promise<number>;
  /** Polls until a round reads nothing: every record written before the call has been handed over. */
  drain: () => Promise<void>;
  close: () => void;
}

/** How often the shards are listed again while none ended (DynamoDB opens a new one when one ends). */
const REDISCOVER_MS = 5000;

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;

interface ShardState {
  id: string;
  parent?: string;
  iterator?: string;
  /** Read to its end (a closed shard): its children may be read. */
  done: boolean;
  /** Ended, and the shards listed since (its children are known). */
  listed?: boolean;
  /** Failed deliveries of the batch starting at `retryFrom`. */
  failures: number;
  retryFrom?: string;
}

/** Whether a value matches one of Lambda's filter patterns (lists of accepted values, nested objects, `{ exists }`). */
export function matchesFilter(value: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((accepted) => {
      if (accepted && typeof accepted === 'object' && 'exists' in accepted)
        return (value !== undefined) === (accepted as { exists: boolean }).exists;
      return value === accepted;
    });
  }
  if (pattern && typeof pattern === 'object') {
    const entries = Object.entries(pattern as Record<string, unknown>);
    return entries.every(([k, p]) => {
      const v = value && typeof value === 'object' ? (value as Record<string, unknown>)[k] : undefined;
      if (Array.isArray(p) && p.some((a) => a && typeof a === 'object' && 'exists' in a))
        return matchesFilter(v, p);
      return v !== undefined && matchesFilter(v, p);
    });
  }
  return value === pattern;
}

/** A stream record as Lambda hands it over (the SDK's Date as epoch seconds). */
function lambdaRecord(r: _Record, streamArn: string): DynamoDBRecord {
  const { ApproximateCreationDateTime, ...dynamodb } = r.dynamodb ?? {};
  return {
    ...(r.eventID ? { eventID: r.eventID } : {}),
    ...(r.eventName ? { eventName: r.eventName } : {}),
    eventVersion: r.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: r.awsRegion ?? 'local',
    eventSourceARN: streamArn,
    dynamodb: {
      ...(dynamodb as DynamoDBRecord['dynamodb']),
      ...(ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(ApproximateCreationDateTime.getTime() / 1000) }
        : {}),
    },
  };
}

export function streamReader(options: {
  endpoint: string;
  table: string;
  consumer: Pick<StreamConsumer, 'name' | 'filter' | 'batchSize' | 'retryAttempts'>;
  handler: Handler;
  /** Where a line about a batch given up on goes (stderr by default). */
  report?: (line: string) => void;
}): StreamReader {
  const { consumer, handler } = options;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const client = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  let streamArn: string | undefined;
  const shards = new Map<string, ShardState>();
  let running: Promise<unknown> = Promise.resolve();

  async function arn(): Promise<string> {
    if (streamArn) return streamArn;
    const out = await client.send(new ListStreamsCommand({ TableName: options.table }));
    const found = out.Streams?.[0]?.StreamArn;
    if (!found) throw new Error(`table ${options.table} has no stream`);
    streamArn = found;
    return found;
  }

  /** Shards not seen yet, from the oldest record each holds. */
  async function discover(): Promise<void> {
    const StreamArn = await arn();
    const all: Shard[] = [];
    let start: string | undefined;
    do {
      const out = await client.send(
        new DescribeStreamCommand({ StreamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }),
      );
      all.push(...(out.StreamDescription?.Shards ?? []));
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    for (const s of all) {
      if (!s.ShardId || shards.has(s.ShardId)) continue;
      shards.set(s.ShardId, {
        id: s.ShardId,
        ...(s.ParentShardId ? { parent: s.ParentShardId } : {}),
        done: false,
        failures: 0,
      });
    }
  }

  async function iteratorOf(shard: ShardState): Promise<string | undefined> {
    if (shard.iterator) return shard.iterator;
    const out = await client.send(
      new GetShardIteratorCommand({
        StreamArn: await arn(),
        ShardId: shard.id,
        ...(shard.retryFrom
          ? { ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: shard.retryFrom }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    shard.iterator = out.ShardIterator;
    return shard.iterator;
  }

  /** One GetRecords of a shard, its matching records handed over; the number read. */
  async function readShard(shard: ShardState): Promise<number> {
    const iterator = await iteratorOf(shard);
    if (!iterator) {
      shard.done = true;
      return 0;
    }
    const out = await client.send(
      new GetRecordsCommand({ ShardIterator: iterator, Limit: consumer.batchSize }),
    );
    const records = out.Records ?? [];
    const StreamArn = await arn();
    const batch = records
      .map((r) => lambdaRecord(r, StreamArn))
      .filter((r) => matchesFilter(r, consumer.filter));
    let failedAt: string | undefined;
    if (batch.length) {
      try {
        const answer = await handler({ Records: batch });
        const failed = (answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
        failedAt = failed.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))[0];
      } catch (error) {
        report(`[${consumer.name}] the batch failed: ${(error as Error).message}`);
        failedAt = batch[0]?.dynamodb?.SequenceNumber;
      }
    }
    if (failedAt !== undefined) {
      shard.failures = shard.retryFrom === failedAt ? shard.failures + 1 : 1;
      if (shard.failures <= consumer.retryAttempts) {
        // Read again from the first record not handled, as Lambda retries a batch.
        shard.retryFrom = failedAt;
        shard.iterator = undefined;
        return records.length;
      }
      report(
        `[${consumer.name}] gave up on the records from ${failedAt} after ${shard.failures} attempts (in AWS: its dead-letter queue)`,
      );
    }
    shard.failures = 0;
    shard.retryFrom = undefined;
    shard.iterator = out.NextShardIterator;
    if (!shard.iterator) shard.done = true;
    return records.length;
  }

  /**
   * The shards are listed again when one ended (its children follow), when asked (a drain: any
   * shard opened before the call is read), and every REDISCOVER_MS otherwise: a DescribeStream on
   * every poll was most of what the poller cost while the stream was quiet.
   */
  let listedAt = 0;
  async function pollOnce(relist = false): Promise<number> {
    if (
      relist ||
      Date.now() - listedAt > REDISCOVER_MS ||
      [...shards.values()].some((s) => s.done && !s.listed)
    ) {
      await discover();
      listedAt = Date.now();
      for (const s of shards.values()) if (s.done) s.listed = true;
    }
    let read = 0;
    for (const shard of shards.values()) {
      if (shard.done) continue;
      // A child shard is read once its parent is read to its end: records stay in order.
      const parent = shard.parent ? shards.get(shard.parent) : undefined;
      if (parent && !parent.done) continue;
      read += await readShard(shard);
    }
    return read;
  }

  // One poll at a time: rounds asked for meanwhile wait their turn.
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = running.then(run, run);
    running = next.catch(() => undefined);
    return next;
  };

  return {
    poll: () => serial(pollOnce),
    drain: () =>
      serial(async () => {
        let relist = true;
        while ((await pollOnce(relist)) > 0) {
          relist = false;
          // read until a round finds nothing
        }
      }),
    close: () => client.destroy(),
  };
}

/**
 * Polls a reader every `intervalMs`, as Lambda gathers a batch for its batching window (a count
 * is then at most about `intervalMs` behind its Start); a failed round is reported and retried.
 * Reading again at once while records keep coming would read them a few at a time: many more
 * GetRecords calls, each a cost to DynamoDB Local and to this process, on the machine's few cores.
 */
export function pollForever(
  reader: StreamReader,
  intervalMs: number,
  report: (line: string) => void,
): { stop: () => Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        await reader.poll();
      } catch (error) {
        report(`stream poll failed: ${(error as Error).message}`);
      }
      if (!stopped)
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, intervalMs);
        });
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wake?.();
      await loop;
      reader.close();
    },
  };
}

/** The stream consumers' process (./stream-consumer.ts): its pid (the bench reads its CPU), `drain`, `stop`. */
export interface StreamConsumerProcess extends LocalProcess {
  /** Resolves once every record written before the call has been handed to the consumers. */
  drain: () => Promise<void>;
  /** The consumers' DynamoDB commands and write units since the last call. */
  usage: () => Promise<{ calls: number; writeUnits: number }>;
}

/**
 * Starts ./stream-consumer.ts as a child process with this process's environment (the table and
 * the endpoint it names); resolves once it reads the stream.
 */
export async function startStreamConsumers(): Promise<StreamConsumerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./stream-consumer.ts', import.meta.url))],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: process.env },
  );
  const held = supervise(child);
  await new Promise<void>((resolve, reject) => {
    const exited = (code: number | null) =>
      reject(new Error(`the stream consumers exited (${code}) before they read`));
    child.once('exit', exited);
    child.on('message', (m: { kind: string }) => {
      if (m.kind !== 'ready') return;
      child.off('exit', exited);
      resolve();
    });
  });
  let asked = 0;
  return {
    ...held,
    pid: child.pid as number,
    drain: () =>
      new Promise<void>((resolve, reject) => {
        const id = ++asked;
        const on = (m: { kind: string; id?: number; error?: string }) => {
          if (m.kind !== 'drained' || m.id !== id) return;
          child.off('message', on);
          if (m.error) reject(new Error(m.error));
          else resolve();
        };
        child.on('message', on);
        child.send({ kind: 'drain', id });
      }),
    usage: () =>
      new Promise((resolve) => {
        const id = ++asked;
        const on = (m: { kind: string; id?: number; calls?: number; writeUnits?: number }) => {
          if (m.kind !== 'usage' || m.id !== id) return;
          child.off('message', on);
          resolve({ calls: m.calls ?? 0, writeUnits: m.writeUnits ?? 0 });
        };
        child.on('message', on);
        child.send({ kind: 'usage', id });
      }),
  };
}
