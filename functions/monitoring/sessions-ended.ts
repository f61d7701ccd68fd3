// GET /api/v1/sessions/ended: A reseller's sessions ended in the last 30 days, by code or by the buyer's phone

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { findEndedSessions } from './ended-sessions.js';
import { EndedSessionsQuery, EndedSessionsResponse } from './schemas.js';

/** A reseller's sessions ended in the last 30 days, by code or by the buyer's phone. */
export const handler = sessionEndpoint(
  'GET /api/v1/sessions/ended',
  { query: EndedSessionsQuery, ok: EndedSessionsResponse },
  async ({ query, principal }) => {
    const resellerId = resellerInScope(principal, query.reseller_id);
    return json(200, await findEndedSessions(resellerId, query, clock.now()));
  },
);
