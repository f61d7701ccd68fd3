/**
 * `npm start`: the whole API on one port, on DynamoDB Local, as it runs in AWS.
 * PORT (3000), DYNAMODB_PORT (8000), DYNAMODB_ENDPOINT (use one already running),
 * DYNAMODB_PERSIST=1 (keep data in .local/dynamodb), SMS_OUTBOX, WEBHOOK_SECRET.
 */
import './local/preamble.js';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type DynamoDbLocal,
  localClient,
  startDynamoDbLocal,
  waitForDynamo,
} from './local/dynamodb-local.js';
import { applyLocalEnv, LOCAL_DIR, LOCAL_TABLE, localSecrets } from './local/env.js';
import { startLocalJobs } from './local/jobs.js';
import { localPages } from './local/pages.js';
import { startServer } from './local/server.js';
import { createTable, seed } from './local/table.js';

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST ?? '127.0.0.1';
  mkdirSync(LOCAL_DIR, { recursive: true });

  let dynamo: DynamoDbLocal | undefined;
  let endpoint = process.env.DYNAMODB_ENDPOINT;
  if (endpoint) {
    await waitForDynamo(endpoint, 5000);
  } else {
    const persist = process.env.DYNAMODB_PERSIST === '1';
    if (persist) mkdirSync(resolve(LOCAL_DIR, 'dynamodb'), { recursive: true });
    dynamo = await startDynamoDbLocal({
      port: Number(process.env.DYNAMODB_PORT ?? 8000),
      ...(persist ? { dbPath: resolve(LOCAL_DIR, 'dynamodb') } : {}),
    });
    endpoint = dynamo.endpoint;
  }

  const publicBaseUrl = process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  applyLocalEnv({
    endpoint,
    tableName: process.env.TABLE_NAME ?? LOCAL_TABLE,
    publicBaseUrl,
    secrets: localSecrets(),
  });
  process.env.SMS_ECHO = '1';
  const client = localClient(endpoint);
  await createTable(client, process.env.TABLE_NAME ?? LOCAL_TABLE);
  client.destroy();
  await seed();

  const api = await startServer({ port, host, pages: localPages() });
  const stopJobs = startLocalJobs({ baseUrl: api.url });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping\n`);
    await stopJobs();
    await api.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      `Hotspot API listening on ${base}  (DynamoDB: ${endpoint}${dynamo ? ', started by this server' : ''})`,
      `SMS go to the console and to ${process.env.SMS_OUTBOX}`,
      '',
      'Try it:',
      `  curl -s -X POST ${base}/api/v1/auth/otp/request -H 'content-type: application/json' -d '{"msisdn":"+2250712345678"}'`,
      `  tail -n1 ${process.env.SMS_OUTBOX}    # the code`,
      `  curl -s -X POST ${base}/api/v1/auth/otp/verify -H 'content-type: application/json' -d '{"msisdn":"+2250712345678","otp":"<code>"}'`,
      `  curl -s ${base}/api/v1/forfaits`,
      '',
      'Ctrl-C stops the API and DynamoDB Local.',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${(error as Error).message}\n`);
  process.exit(1);
});
