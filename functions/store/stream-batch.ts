// The stream consumers' batch reader: the last new image per item, and the partial batch failures.

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { Item } from './keys.js';

/**
 * The table's stream read by a consumer (functions/streams.ts), one batch at a time, the way
 * Powertools' batch processor answers a DynamoDB stream with partial failures: the new images of
 * one entity's items that the consumer takes, the last image of each item (records come at least
 * once and in order per item, so an item's last is its newest), handed to `process` together;
 * the items it could not settle are answered as batch item failures, each by the sequence number
 * of its first record in the batch, and Lambda delivers the batch again from the first of them.
 *
 * A batch rather than a record at a time, as Powertools' handler would take them: the consumers
 * read every item's related record in one call and count several items in one transaction.
 */
export async function readStreamBatch<T>(
  event: DynamoDBStreamEvent,
  spec: {
    entity: { name: string; parse: (item: Item) => T };
    events: readonly ('INSERT' | 'MODIFY')[];
    /** The images this consumer takes (its event filter, checked again). */
    takes: (item: Item) => boolean;
    idOf: (t: T) => string;
  },
  process: (items: T[]) => Promise<{ failed: readonly string[] }>,
): Promise<DynamoDBBatchResponse> {
  const latest = new Map<string, { item: T; first: string }>();
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    const sequence = record.dynamodb?.SequenceNumber;
    const kind = record.eventName as 'INSERT' | 'MODIFY' | 'REMOVE' | undefined;
    if (!image || !sequence || !kind || kind === 'REMOVE' || !spec.events.includes(kind)) continue;
    const raw = unmarshall(image as Record<string, AttributeValue>);
    if (raw.entity !== spec.entity.name || !spec.takes(raw)) continue;
    const item = spec.entity.parse(raw);
    const id = spec.idOf(item);
    latest.set(id, { item, first: latest.get(id)?.first ?? sequence });
  }
  if (latest.size === 0) return { batchItemFailures: [] };
  const { failed } = await process([...latest.values()].map((l) => l.item));
  return {
    batchItemFailures: failed.map((id) => ({ itemIdentifier: latest.get(id)?.first as string })),
  };
}
