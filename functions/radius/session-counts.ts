// The SessionCounts stream consumer: Count new RADIUS sessions (the open counters and the reseller's month) from the table's stream, several sessions a transaction

import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { endInvocation, log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { Session } from '../store/sessions.js';
import { readStreamBatch } from '../store/stream-batch.js';
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
    return await readStreamBatch(
      event,
      {
        entity: Session,
        events: ['INSERT', 'MODIFY'],
        takes: (item) => item.uncounted === true,
        idOf: (s) => s.id,
      },
      async (sessions) => {
        const outcome = await countSessions(sessions);
        if (outcome.counted.length) countMetric('SessionsCounted', outcome.counted.length);
        log.info('session counts', {
          records: event.Records.length,
          sessions: sessions.length,
          counted: outcome.counted.length,
          skipped: outcome.skipped.length,
          failed: outcome.failed.length,
          transactions: outcome.transactions,
        });
        return outcome;
      },
    );
  } finally {
    await endInvocation();
  }
}
