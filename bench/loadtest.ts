/**
 * `npm run loadtest`: simulated routers of 20 resellers x 10 hotspots against the local stack
 * (DynamoDB Local on a free loopback port, the API in this process), for LOADTEST_SECONDS
 * (default 60) with LOADTEST_WORKERS (default 24) requests in flight. Prints the report of
 * bench/load-routers.ts; its last line names the hottest partition key and its share of writes.
 * Exits 1 when that share passes LOADTEST_MAX_SHARE % (default 2) or a transaction conflicted
 * on an item other transactions share (any key but a session's or its code's own).
 */
import './preamble.js';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localClient, startDynamoDbLocal } from '../bin/local/dynamodb-local.js';
import { applyLocalEnv } from '../bin/local/env.js';
import { localPages } from '../bin/local/pages.js';
import { startServer } from '../bin/local/server.js';
import { createTable, seed } from '../bin/local/table.js';
import { runLoad, sharedConflicts } from './load-routers.js';

const seconds = Number(process.env.LOADTEST_SECONDS ?? 60);
const workers = Number(process.env.LOADTEST_WORKERS ?? 24);
const maxShare = Number(process.env.LOADTEST_MAX_SHARE ?? 2) / 100;

async function main(): Promise<number> {
  const dynamo = await startDynamoDbLocal();
  const localDir = join(tmpdir(), `loadtest-${process.pid}`);
  mkdirSync(localDir, { recursive: true });
  try {
    applyLocalEnv({
      endpoint: dynamo.endpoint,
      tableName: 'loadtest',
      publicBaseUrl: 'http://127.0.0.1:0',
      secrets: {
        JWT_SECRET: 'loadtest-jwt-secret-0123456789abcdef',
        OTP_PEPPER: 'loadtest-pepper-0123456789',
        WEBHOOK_SECRET: 'loadtest-webhook-secret-0123',
        RADIUS_API_SECRET: 'loadtest-radius-api-secret-0123456789',
        ROUTER_KEY_SEED: 'loadtest-router-key-seed-0123456789abcdef',
      },
      smsOutbox: join(localDir, 'sms.jsonl'),
    });
    process.env.LOCAL_CANARY = '0';
    const client = localClient(dynamo.endpoint);
    await createTable(client, 'loadtest');
    client.destroy();
    await seed();
    const server = await startServer({ port: 0, pages: localPages() });
    process.env.PUBLIC_BASE_URL = server.url;
    try {
      const r = await runLoad({
        baseUrl: server.url,
        seconds,
        workers,
        resellers: 20,
        hotspots: 10,
        codesPerHotspot: 10,
      });
      for (const line of r.lines) console.log(line);
      const shared = sharedConflicts(r);
      if ((r.hottest?.share ?? 0) > maxShare || shared > 0 || r.failed > 0) {
        console.error(
          `loadtest: target missed (hottest over ${maxShare * 100} %, ${shared} conflicts on shared items, ${r.failed} failed requests)`,
        );
        return 1;
      }
      return 0;
    } finally {
      await server.close();
    }
  } finally {
    await dynamo.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
