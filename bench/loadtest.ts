/**
 * `npm run loadtest`: simulated routers of 20 resellers x 10 hotspots against the local stack
 * (DynamoDB Local on a free loopback port, the API in this process), for LOADTEST_SECONDS
 * (default 60) with LOADTEST_WORKERS (default 24) requests in flight, and the table's stream
 * consumers (new sessions' counting) reading its stream in this process. Prints the report of
 * bench/load-routers.ts; its last line names the hottest partition key and its share of writes.
 * Exits 1 when that share passes LOADTEST_MAX_SHARE % (default 2) or a transaction conflicted
 * on an item other transactions share (any key but a session's or its code's own). The report
 * goes into docs/bench.md, "Load test", dated by the run.
 */
import './preamble.js';
import { resolve } from 'node:path';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { pollForever, type StreamReader, streamReader } from '../bin/local/streams.js';
import { tableName } from '../functions/core/ddb.js';
import { startFrontService } from '../functions/front/service.js';
import { streamConsumers } from '../functions/streams.js';
import { writeSection } from '../test/support/bench-doc.js';
import { runLoad, sharedConflicts } from '../test/support/load-routers.js';
import { withLocalStack } from './stack.js';

const seconds = Number(process.env.LOADTEST_SECONDS ?? 60);
const workers = Number(process.env.LOADTEST_WORKERS ?? 24);
const maxShare = Number(process.env.LOADTEST_MAX_SHARE ?? 2) / 100;

async function main(): Promise<number> {
  return withLocalStack(
    'loadtest',
    async ({ url }) => {
      // The stream consumers (the sessions' counting) run in this process, as the API does, so
      // that the ledger counts their writes and conflicts with the routes'.
      const readers: StreamReader[] = [];
      for (const consumer of streamConsumers) {
        const module = new URL(`../functions/${consumer.handler}.ts`, import.meta.url).href;
        const { handler } = (await import(module)) as {
          handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
        };
        readers.push(
          streamReader({
            endpoint: process.env.DYNAMODB_ENDPOINT as string,
            table: tableName(),
            consumer,
            handler,
          }),
        );
      }
      const loops = readers.map((r) => pollForever(r, 200, (line) => console.error(`loadtest: ${line}`)));
      // The RADIUS data plane's routes are the front's service's (in this process, as the API).
      const front = await startFrontService({ port: 0 });
      await front.routers.ready;
      try {
        const r = await runLoad({
          baseUrl: url,
          frontUrl: front.url,
          seconds,
          workers,
          resellers: 20,
          hotspots: 10,
          codesPerHotspot: 10,
          settle: async () => {
            await Promise.all(readers.map((reader) => reader.drain()));
          },
        });
        for (const line of r.lines) console.log(line);
        writeSection(resolve(import.meta.dirname, '..'), [
          '## Load test',
          '',
          '`npm run loadtest` (docs/scale.md, "Load test", says what it runs and counts), run on its own; the shares of writes are what the run is for, the latencies are this machine\'s. The load generator calls the RADIUS routes directly (authorize, then post-auth, as a CHAP login does), not through FreeRADIUS.',
          '',
          '```',
          ...r.lines,
          '```',
        ]);
        const shared = sharedConflicts(r);
        if ((r.hottest?.share ?? 0) > maxShare || shared > 0 || r.failed > 0) {
          console.error(
            `loadtest: target missed (hottest over ${maxShare * 100} %, ${shared} conflicts on shared items, ${r.failed} failed requests)`,
          );
          return 1;
        }
        return 0;
      } finally {
        await Promise.all(loops.map((l) => l.stop()));
        await front.close();
      }
    },
    { stream: true },
  );
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
