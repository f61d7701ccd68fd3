// The SessionCounts stream consumer: Count new RADIUS sessions (the open counters and the reseller's month) from the table's stream, several sessions a transaction

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { endInvocation, log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { type RadiusSession, Session } from '../store/sessions.js';
import { countSessions } from './count-sessions.js';

/**
 * The table's stream consumer that counts new sessions (functions/streams.ts): a session's
 * first report writes it `uncounted` and no shared counter (functions/store/sessions.ts,
 * `openSessionItems`); this adds it to the open counters and its reseller's month, several
 * sessions a transaction. Records come at least once and a session may have several in a
 * batch: its last image is the one counted, and the condition on `uncounted` makes a second
 * delivery, or a session its next report counted first, a no-op. What could not be counted
 * is answered as batch item failures: Lambda delivers the batch again from the first of them.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  try {
    const latest = new Map<string, { session: RadiusSession; first: string }>();
    for (const record of event.Records) {
      const image = record.dynamodb?.NewImage;
      const sequence = record.dynamodb?.SequenceNumber;
      if (!image || !sequence || (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY')) continue;
      const item = unmarshall(image as Record<string, AttributeValue>);
      if (item.entity !== Session.name || item.uncounted !== true) continue;
      const session = Session.parse(item);
      latest.set(session.id, { session, first: latest.get(session.id)?.first ?? sequence });
    }
    if (latest.size === 0) return { batchItemFailures: [] };
    const outcome = await countSessions([...latest.values()].map((l) => l.session));
    if (outcome.counted.length) countMetric('SessionsCounted', outcome.counted.length);
    log.info('session counts', {
      records: event.Records.length,
      sessions: latest.size,
      counted: outcome.counted.length,
      skipped: outcome.skipped.length,
      failed: outcome.failed.length,
      transactions: outcome.transactions,
    });
    return {
      batchItemFailures: outcome.failed.map((id) => ({ itemIdentifier: latest.get(id)?.first as string })),
    };
  } finally {
    await endInvocation();
  }
}
