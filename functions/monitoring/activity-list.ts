// GET /api/v1/activity: The activity log: writes by operators and resellers (who, what, when, from where), by cursor

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { clock } from '../core/clock.js';
import { openCursor, sealCursor } from '../core/cursor.js';
import { json } from '../core/http.js';
import { activityPage } from '../store/activity.js';
import type { Item } from '../store/entity.js';
import { ActivityPage, ActivityQuery } from './schemas.js';

/** The activity log: a day's writes by operators and resellers, or one actor's, newest first. */
export const handler = sessionEndpoint(
  'GET /api/v1/activity',
  { query: ActivityQuery, ok: ActivityPage },
  async ({ query }) => {
    const scope = query.actor ? { actor: query.actor } : { day: query.day ?? clock.iso().slice(0, 10) };
    const list = 'day' in scope ? `day:${scope.day}` : `actor:${scope.actor}`;
    const page = await activityPage(
      scope,
      await openCursor<Item>('activity', list, query.cursor),
      query.limit,
    );
    const next = page.next ? { next_cursor: await sealCursor('activity', list, page.next) } : {};
    return json(200, { items: page.items, ...next });
  },
);
