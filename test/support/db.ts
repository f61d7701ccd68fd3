import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll } from 'vitest';
import { localClient } from '../../bin/local/dynamodb-local.js';
import { createTable, seed } from '../../bin/local/table.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { resetSecrets } from '../../functions/core/secrets.js';

/**
 * Creates a fresh table in the run's DynamoDB Local and points the functions at it. `streams`:
 * with the table's stream, for a test that reads what a stream consumer keeps (`drainStreams()`
 * in test/support/streams.ts); only then, since every table with a stream slows DynamoDB Local's
 * writes to all of them (bin/local/table.ts).
 */
export async function createTestTable(options: { seed?: boolean; streams?: boolean } = {}): Promise<string> {
  const name = `test-${randomUUID()}`;
  created.push(name);
  const client = localClient(process.env.DYNAMODB_ENDPOINT as string);
  await createTable(client, name, { stream: options.streams === true });
  client.destroy();
  process.env.TABLE_NAME = name;
  resetConfig();
  resetSecrets();
  setDdb(undefined);
  if (options.seed) await seed();
  return name;
}

/** The tables this test file created (each file runs in its own process). */
const created: string[] = [];

/**
 * Deletes the tables this file created, once its tests (and their servers) are done
 * (test/support/setup.ts): DynamoDB Local keeps every table in its heap, and every table with a
 * stream slows its writes to all, so a whole run's tables left behind slow the files that run
 * last until their requests time out.
 */
export async function dropTestTables(): Promise<void> {
  const client = localClient(process.env.DYNAMODB_ENDPOINT as string);
  try {
    for (const name of created.splice(0)) {
      await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
    }
  } finally {
    client.destroy();
  }
}

/** A fresh table for this test file, created before its tests. */
export function useTestTable(options: { seed?: boolean; streams?: boolean } = {}): { name: () => string } {
  let name = '';
  beforeAll(async () => {
    name = await createTestTable(options);
  });
  return { name: () => name };
}
