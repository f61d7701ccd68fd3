import * as z from 'zod/mini';
import { clock } from '../core/clock.js';
import { validation } from '../core/errors.js';
import { json } from '../core/http.js';
import { sessionEndpoint } from '../core/session-endpoint.js';
import { type ActivityPosition, activityPage } from '../store/activity.js';
import { ActivityPage, ActivityQuery } from './schemas.js';

const Position = z.strictObject({
  at: z.string().check(z.maxLength(40)),
  id: z.string().check(z.maxLength(100)),
});
const encode = (p: ActivityPosition) => Buffer.from(JSON.stringify(p)).toString('base64url');
function decode(cursor: string | undefined): ActivityPosition | undefined {
  if (!cursor) return undefined;
  try {
    return Position.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw validation('Invalid cursor', [{ path: 'query.cursor', message: 'not a cursor of this list' }]);
  }
}

/** The activity log: a day's writes by operators and resellers, or one actor's, newest first. */
export const handler = sessionEndpoint(
  'GET /api/v1/activity',
  { query: ActivityQuery, response: { status: 200, schema: ActivityPage } },
  async ({ query }) => {
    const scope = query.actor ? { actor: query.actor } : { day: query.day ?? clock.iso().slice(0, 10) };
    const page = await activityPage(scope, decode(query.cursor), query.limit);
    return json(200, { items: page.items, ...(page.next ? { next_cursor: encode(page.next) } : {}) });
  },
);
