import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { isConditionFailure } from './table.js';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

const keys = {
  limiter: (scope: string, subject: string) => ({ pk: `RATE#${scope}#${subject}`, sk: 'RATE' }),
};

/**
 * Sliding-window limiter: at most `limit` events in any `windowMs`. The item holds one slot per
 * allowed event (`s0`..`s{limit-1}`, each the time it was taken). An event takes the oldest
 * slot if that slot is free or older than the window, by a conditional write on the value it
 * read, so parallel callers can never take the same slot: exact under concurrency.
 */
// Access: GetItem + conditional UpdateItem pk=RATE#<scope>#<subject>, sk=RATE; retried on a lost race.
export async function takeToken(
  scope: string,
  subject: string,
  limit: number,
  windowMs: number,
  nowMs: number,
): Promise<RateDecision> {
  const Key = keys.limiter(scope, subject);
  for (let attempt = 0; attempt < limit + 3; attempt++) {
    const out = await ddb().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
    const slots = Array.from({ length: limit }, (_, i) => {
      const v = out.Item?.[`s${i}`];
      return typeof v === 'number' ? v : undefined;
    });
    let oldest = 0;
    for (let i = 1; i < limit; i++) {
      if ((slots[i] ?? -1) < (slots[oldest] ?? -1)) oldest = i;
    }
    const taken = slots[oldest];
    if (taken !== undefined && taken > nowMs - windowMs) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((taken + windowMs - nowMs) / 1000)) };
    }
    try {
      await ddb().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET #slot = :now, entity = :entity, #ttl = :ttl',
          ConditionExpression: taken === undefined ? 'attribute_not_exists(#slot)' : '#slot = :taken',
          ExpressionAttributeNames: { '#slot': `s${oldest}`, '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':now': nowMs,
            ':entity': 'rate_limit',
            ':ttl': Math.ceil((nowMs + windowMs) / 1000) + 60,
            ...(taken === undefined ? {} : { ':taken': taken }),
          },
        }),
      );
      return { allowed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another request took this slot first: read again.
    }
  }
  // Only reachable under pathological contention; refusing is the safe side.
  return { allowed: false, retryAfterSeconds: 1 };
}
