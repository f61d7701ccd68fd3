import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localClient, startDynamoDbLocal } from '../bin/local/dynamodb-local.js';
import { applyLocalEnv } from '../bin/local/env.js';
import { localPages } from '../bin/local/pages.js';
import { startServer } from '../bin/local/server.js';
import { createTable, seed } from '../bin/local/table.js';

/** The local stack a measurement runs against: the API's URL and the file its SMS go to. */
export interface LocalStack {
  url: string;
  outbox: string;
  /** DynamoDB Local's JVM (the RADIUS bench reads its CPU time). */
  dynamoPid?: number;
}

/**
 * The whole stack in this process, as `npm start` runs it: DynamoDB Local on a free loopback
 * port, a table `name` with the seed data, the API and pages on a free port (no canary).
 * Secrets are made up for the run. Everything stops once `run` settles.
 */
export async function withLocalStack<T>(
  name: string,
  run: (stack: LocalStack) => Promise<T>,
  /** With the table's stream (the RADIUS section runs the stream consumers on it). */
  options: { stream?: boolean } = {},
): Promise<T> {
  const dynamo = await startDynamoDbLocal();
  const localDir = join(tmpdir(), `${name}-${process.pid}`);
  mkdirSync(localDir, { recursive: true });
  const outbox = join(localDir, 'sms.jsonl');
  try {
    applyLocalEnv({
      endpoint: dynamo.endpoint,
      tableName: name,
      publicBaseUrl: 'http://127.0.0.1:0',
      secrets: {
        JWT_SECRET: `${name}-jwt-secret-0123456789abcdef`,
        OTP_PEPPER: `${name}-pepper-0123456789`,
        WEBHOOK_SECRET: `${name}-webhook-secret-0123`,
        RADIUS_API_SECRET: `${name}-radius-api-secret-0123456789`,
        ROUTER_CA_KEY: `${name}-router-ca-key-0123456789abcdef`,
        ROUTER_SEAL_KEY: `${name}-router-seal-key-0123456789abcdef`,
      },
      smsOutbox: outbox,
    });
    process.env.LOCAL_CANARY = '0';
    const client = localClient(dynamo.endpoint);
    await createTable(client, name, { stream: options.stream === true });
    client.destroy();
    await seed();
    const server = await startServer({ port: 0, pages: localPages() });
    process.env.PUBLIC_BASE_URL = server.url;
    try {
      return await run({ url: server.url, outbox, dynamoPid: dynamo.pid });
    } finally {
      await server.close();
    }
  } finally {
    await dynamo.stop();
    rmSync(localDir, { recursive: true, force: true });
  }
}
