// A page of a reseller's live sessions, read from its hotspots' open sessions.

import type { Item } from './entity.js';
import { fullSessions, type RadiusSession, Session } from './sessions.js';

/** Where a page of a reseller's live sessions starts: the n-th of its NAS ids, at a start key. */
export interface LivePosition {
  n: number;
  /** DynamoDB's LastEvaluatedKey in that NAS's list (the caller checks it came from here). */
  start?: Item;
}

/**
 * One page of the open sessions of a reseller's hotspots, NAS after NAS (each NAS's open
 * sessions are one partition of `openByNas`, so a page is one Query per NAS it touches). Only
 * the reseller's own sessions: a NAS id released and allocated again may still hold sessions
 * of its earlier holder, which are that holder's (their codes too), not the new one's.
 */
// Access: Query openByNas (gsi4) gsi4pk=NAS#<nas_id>#OPEN, Limit [ExclusiveStartKey], per NAS id in order; BatchGetItem of the page's sessions.
export async function openSessionsPage(
  resellerId: string,
  nasIds: readonly string[],
  from: LivePosition,
  limit: number,
): Promise<{ items: RadiusSession[]; next?: LivePosition }> {
  const items: RadiusSession[] = [];
  let { n, start } = from;
  while (n < nasIds.length && items.length < limit) {
    const page = await Session.queryIndex(
      'openByNas',
      { nas_id: nasIds[n] as string },
      { limit: limit - items.length, ...(start ? { start } : {}) },
    );
    // gsi4 holds a session's id, code and device: the rest by key.
    const read = await fullSessions(page.items.map((s) => s.id));
    items.push(...read.filter((s) => s.reseller_id === resellerId));
    if (page.next) {
      // A short page (sessions closed since, or another holder's) goes on in the same NAS.
      if (items.length >= limit) return { items, next: { n, start: page.next } };
      start = page.next;
      continue;
    }
    n += 1;
    start = undefined;
  }
  return { items, ...(n < nasIds.length ? { next: { n } } : {}) };
}
