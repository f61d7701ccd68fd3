// POST /api/v1/edge/radius/authorize: An edge's authorize, forwarded from its FreeRADIUS: as the front's, for its own resellers' routers

import { endpoint } from '../core/http.js';
import { AUTHORIZE_CONTRACT, answerAuthorize } from '../radius/answers.js';
import './edge-auth.js';

/**
 * An in-country edge's authorize, forwarded from its FreeRADIUS or replayed after a cut: decided
 * as the front's (functions/radius/answers.ts), for the routers of the edge's resellers only.
 */
export const handler = endpoint(
  'POST /api/v1/edge/radius/authorize',
  AUTHORIZE_CONTRACT,
  ({ body, principal }) => answerAuthorize(body, principal.resellerIds),
);
