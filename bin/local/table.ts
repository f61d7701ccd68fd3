// The single table created locally as the stack declares it, and the catalogue seeded.

import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { createForfait } from '../../functions/store/forfaits.js';
import { TABLE } from '../../functions/store/table.js';

/**
 * Creates the single table as the CDK stack declares it (same keys, indexes, TTL, and its stream
 * of new images, which the stream consumers of functions/streams.ts read: bin/local/streams.ts).
 * `stream: false` leaves the stream out: a test table no consumer reads. DynamoDB Local's writes
 * to a table with a stream slow down with every such table it holds (2,000 items in 25-item
 * batches: about 0.9 s on the first, 2.7 s on the fifth, against 0.3 s without), which a test
 * run's hundreds of tables would turn into timeouts.
 */
export async function createTable(
  client: DynamoDBClient,
  name: string,
  options: { stream?: boolean; waitForIndexes?: boolean } = {},
): Promise<void> {
  const stream = options.stream ?? true;
  const attributes = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const index of TABLE.indexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamView } } : {}),
        AttributeDefinitions: [...attributes].map((a) => ({ AttributeName: a, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE.indexes.map(gsiOf),
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    // A table kept on disk from an earlier run is reused as it is, its stream turned on if it was
    // created before the table had one (its sessions written before count at their next report).
    if (!(error instanceof ResourceInUseException)) throw error;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    // An index added to the table since (gsi5, the voucher lists) is created on it, one at a time
    // as DynamoDB takes them.
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((g) => g.IndexName));
    const missing = TABLE.indexes.filter((i) => !present.has(i.name));
    for (const [i, index] of missing.entries()) {
      await client.send(
        new UpdateTableCommand({
          TableName: name,
          AttributeDefinitions: [index.partitionKey, index.sortKey].map((a) => ({
            AttributeName: a,
            AttributeType: 'S',
          })),
          GlobalSecondaryIndexUpdates: [{ Create: gsiOf(index) }],
        }),
      );
      // The next index waits for this one (DynamoDB builds one at a time); the last is waited
      // for unless the caller says not to (a test, on an emulator busy with a whole run).
      if (i < missing.length - 1 || options.waitForIndexes !== false)
        await untilIndexActive(client, name, index.name);
    }
    if (stream && !Table?.StreamSpecification?.StreamEnabled) {
      await client.send(
        new UpdateTableCommand({
          TableName: name,
          StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamView },
        }),
      );
    }
  }
}

/** Waits (at most five minutes) until an index being created is ACTIVE. */
async function untilIndexActive(client: DynamoDBClient, table: string, index: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    const status = Table?.GlobalSecondaryIndexes?.find((g) => g.IndexName === index)?.IndexStatus;
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline)
      throw new Error(`index ${index} of ${table} still ${status} after five minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A GSI of TABLE as CreateTable and UpdateTable take it. */
function gsiOf(index: (typeof TABLE.indexes)[number]) {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: {
      ProjectionType: index.projection,
      ...('nonKeyAttributes' in index ? { NonKeyAttributes: [...index.nonKeyAttributes] } : {}),
    },
  };
}

/** Seeds the forfaits catalogue; items already there are left alone. */
export async function seed(): Promise<void> {
  for (const forfait of SEED_FORFAITS) await createForfait(forfait);
}
