// POST /api/v1/edge/radius/post-auth: An edge's post-auth (a login it accepted, or replays after a cut): written as the front's

import { endpoint } from '../core/http.js';
import { answerPostAuth, POST_AUTH_CONTRACT } from '../radius/answers.js';
import './edge-auth.js';

/**
 * An in-country edge's post-auth, forwarded from its FreeRADIUS or replayed after a cut: decided
 * as the front's (functions/radius/answers.ts), for the routers of the edge's resellers only.
 */
export const handler = endpoint(
  'POST /api/v1/edge/radius/post-auth',
  POST_AUTH_CONTRACT,
  ({ body, principal }) => answerPostAuth(body, principal.resellerIds),
);
