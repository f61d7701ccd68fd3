import { type RadiusSession, Session } from './sessions.js';

/** Where a page of a reseller's live sessions starts: the n-th of its NAS ids, after a session id. */
export interface LivePosition {
  n: number;
  after?: string;
}

/**
 * One page of the open sessions of a reseller's hotspots, NAS after NAS (each NAS's open
 * sessions are a partition of gsi1, so a page is one Query per NAS it touches). The start key is
 * built here from the position, never taken from the client, so a cursor cannot reach a
 * partition other than the reseller's own NAS ids.
 */
// Access: Query gsi1 gsi1pk=NAS#<nas_id>#OPEN [ExclusiveStartKey gsi1sk=<after>], Limit, per NAS id in order.
export async function openSessionsPage(
  nasIds: readonly string[],
  from: LivePosition,
  limit: number,
): Promise<{ items: RadiusSession[]; next?: LivePosition }> {
  const items: RadiusSession[] = [];
  let { n, after } = from;
  while (n < nasIds.length && items.length < limit) {
    const nasId = nasIds[n] as string;
    const start = after
      ? {
          ...Session.key({ id: after }),
          gsi1pk: Session.indexes.gsi1.pk({ nas_id: nasId }),
          gsi1sk: after,
        }
      : undefined;
    const page = await Session.queryIndex(
      'gsi1',
      { nas_id: nasId },
      { limit: limit - items.length, ...(start ? { start } : {}) },
    );
    items.push(...page.items);
    if (page.next && items.length >= limit)
      return { items, next: { n, after: items[items.length - 1]?.id as string } };
    n += 1;
    after = undefined;
  }
  return { items, ...(n < nasIds.length ? { next: { n } } : {}) };
}
