import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/**
 * The single table's shape, shared by the CDK stack and the local server so that both create
 * the same table. Every entity module builds its keys from these generic names.
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired items late, so code checks expiry itself. */
  ttlAttribute: 'ttl',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
} as const;

export type IndexName = (typeof TABLE.indexes)[number]['name'];

/** Every stored item carries its entity name, so that items of one partition are told apart. */
export interface BaseItem {
  pk: string;
  sk: string;
  entity: string;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
  ttl?: number;
}

/** Strips the key and bookkeeping attributes before an item leaves the store. */
export function stripKeys<T extends Record<string, unknown>>(
  item: T,
): Omit<T, 'pk' | 'sk' | 'entity' | 'gsi1pk' | 'gsi1sk' | 'gsi2pk' | 'gsi2sk' | 'ttl'> {
  const { pk, sk, entity, gsi1pk, gsi1sk, gsi2pk, gsi2sk, ttl, ...rest } = item;
  return rest;
}

/** True when the error is DynamoDB's refusal of a condition expression. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** True when a transaction was cancelled; `reasons` gives the per-item codes. */
export function cancellationReasons(error: unknown): string[] | undefined {
  if ((error as { name?: string } | null)?.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((r) => r.Code ?? 'None');
}

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** Every item a Query matches, following `LastEvaluatedKey` page after page. */
export async function queryAll(input: QueryInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: start }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** How many items a Query matches (`Select: COUNT`, every page). */
export async function queryCount(input: QueryInput): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new QueryCommand({ ...input, TableName: tableName(), Select: 'COUNT', ExclusiveStartKey: start }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}
