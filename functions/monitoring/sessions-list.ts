// GET /api/v1/sessions: A reseller's live sessions by cursor, with what each code has left

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { liveSessions } from './live-sessions.js';
import { LiveSessionsPage, LiveSessionsQuery } from './schemas.js';

/** A reseller's live sessions by cursor (an admin names the reseller). */
export const handler = sessionEndpoint(
  'GET /api/v1/sessions',
  { query: LiveSessionsQuery, ok: LiveSessionsPage },
  async ({ query, principal }) => {
    const resellerId = resellerInScope(principal, query.reseller_id);
    return json(200, await liveSessions(resellerId, query.limit, query.cursor, clock.now()));
  },
);
