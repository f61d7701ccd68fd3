import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { isConditionFailure } from './table.js';

/**
 * Sliding-window limiter: at most `limit` events in any `windowMs`. The item holds one slot per
 * allowed event (`s0`..`s{limit-1}`, each the time it was taken). An event takes the oldest slot
 * if that slot is free or older than the window, by a conditional write on the value read, so
 * parallel callers can never take the same slot: exact under concurrency.
 */
export interface RateWindow {
  scope: string;
  limit: number;
  windowMs: number;
}

export type RatePlan =
  | { allowed: true; slot: number; taken: number | undefined }
  | { allowed: false; retryAfterSeconds: number };

export const rateKeys = {
  limiter: (scope: string, subject: string) => ({ pk: `RATE#${scope}#${subject}`, sk: 'RATE' }),
};

/** Which slot an event would take, given the limiter item as read (pure). */
export function planToken(item: Record<string, unknown> | undefined, w: RateWindow, nowMs: number): RatePlan {
  const slots = Array.from({ length: w.limit }, (_, i) => {
    const v = item?.[`s${i}`];
    return typeof v === 'number' ? v : undefined;
  });
  let oldest = 0;
  for (let i = 1; i < w.limit; i++) {
    if ((slots[i] ?? -1) < (slots[oldest] ?? -1)) oldest = i;
  }
  const taken = slots[oldest];
  if (taken !== undefined && taken > nowMs - w.windowMs) {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((taken + w.windowMs - nowMs) / 1000)) };
  }
  return { allowed: true, slot: oldest, taken };
}

/** The conditional update that takes the planned slot (alone, or inside a transaction). */
export function takeSlotUpdate(
  w: RateWindow,
  subject: string,
  plan: { slot: number; taken: number | undefined },
  nowMs: number,
) {
  return {
    TableName: tableName(),
    Key: rateKeys.limiter(w.scope, subject),
    UpdateExpression: 'SET #slot = :now, entity = :entity, #ttl = :ttl',
    ConditionExpression: plan.taken === undefined ? 'attribute_not_exists(#slot)' : '#slot = :taken',
    ExpressionAttributeNames: { '#slot': `s${plan.slot}`, '#ttl': 'ttl' },
    ExpressionAttributeValues: {
      ':now': nowMs,
      ':entity': 'rate_limit',
      ':ttl': Math.ceil((nowMs + w.windowMs) / 1000) + 60,
      ...(plan.taken === undefined ? {} : { ':taken': plan.taken }),
    },
  };
}

/** Takes a token on its own: read, plan, conditional write; read again after a lost race. */
// Access: GetItem + conditional UpdateItem pk=RATE#<scope>#<subject>, sk=RATE; retried on a lost race.
export async function takeToken(
  w: RateWindow,
  subject: string,
  nowMs: number,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  for (let attempt = 0; attempt < w.limit + 3; attempt++) {
    const out = await ddb().send(
      new GetCommand({
        TableName: tableName(),
        Key: rateKeys.limiter(w.scope, subject),
        ConsistentRead: true,
      }),
    );
    const plan = planToken(out.Item, w, nowMs);
    if (!plan.allowed) return plan;
    try {
      await ddb().send(new UpdateCommand(takeSlotUpdate(w, subject, plan, nowMs)));
      return { allowed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  // Only reachable under pathological contention; refusing is the safe side.
  return { allowed: false, retryAfterSeconds: 1 };
}
