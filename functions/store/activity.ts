// The activity log: what operators did, kept a while and read a page at a time.

import { randomUUID } from 'node:crypto';
import { entity, type Item } from './entity.js';

/**
 * The activity log: one item per write an operator or a reseller made through the API (who,
 * what, when, from where), put by the session endpoint after the handler ran. One PutItem with
 * a TTL, nothing read first. Items of one day share a partition: operators' and resellers'
 * writes are a few thousand a day, far under a partition's write limit (subscribers' writes,
 * the platform's volume, are not logged here).
 */
export interface ActivityEntry {
  at: string;
  /** Unique within the instant (the request id, else random). */
  id: string;
  actor_sub: string;
  actor_ref: string;
  role: 'reseller' | 'admin' | 'agent';
  reseller_id?: string;
  /** The route key, `PUT /api/v1/branding/{nas_id}`. */
  action: string;
  /** The path as called (its ids), without the query string. */
  target: string;
  status: number;
  /** The caller's address as API Gateway saw it. */
  ip: string;
  /**
   * What the request said, for the log to read as a sentence: a few fields of its body, never a
   * phone number or a secret (`activityFacts` in auth/session-endpoint.ts names them).
   */
  facts?: Record<string, string | number>;
}

/** Kept 180 days, then DynamoDB's TTL removes them. */
const KEEP_S = 180 * 86_400;

export const Activity = entity<ActivityEntry>('activity')({
  key: (e: Pick<ActivityEntry, 'at' | 'id'>) => ({
    pk: `ACTIVITY#${e.at.slice(0, 10)}`,
    sk: `${e.at}#${e.id}`,
  }),
  indexes: {
    /** One actor's entries, newest first. */
    byActor: { gsi: 'gsi1', pk: 'ACTOR#{actor_sub}#ACTIVITY', sk: '{at}#{id}' },
  },
  ttl: (e) => Math.floor(Date.parse(e.at) / 1000) + KEEP_S,
});

// Access: PutItem pk=ACTIVITY#<day>, sk=<at>#<id>, gsi1pk=ACTOR#<sub>#ACTIVITY, ttl.
export async function recordActivity(entry: Omit<ActivityEntry, 'id'> & { id?: string }): Promise<void> {
  await Activity.put({ ...entry, id: entry.id || randomUUID() });
}

/** One page of a day's entries, newest first (or of one actor's, any day), from `start` (a LastEvaluatedKey of this list). */
// Access: Query pk=ACTIVITY#<day> descending, Limit | Query byActor (gsi1) gsi1pk=ACTOR#<sub>#ACTIVITY descending, Limit.
export async function activityPage(
  scope: { day: string } | { actor: string },
  start: Item | undefined,
  limit: number,
): Promise<{ items: ActivityEntry[]; next?: Item }> {
  const from = start ? { start } : {};
  return 'day' in scope
    ? Activity.query({ pk: Activity.key({ at: scope.day, id: '' }).pk, limit, forward: false, ...from })
    : Activity.queryIndex('byActor', { actor_sub: scope.actor }, { limit, forward: false, ...from });
}
