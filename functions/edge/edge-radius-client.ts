// POST /api/v1/edge/radius/client: An edge's dynamic client lookup: one of its resellers' UDP routers at a source address

import { endpoint } from '../core/http.js';
import { answerClient, CLIENT_CONTRACT } from '../radius/answer-client.js';
import './edge-auth.js';

/**
 * An in-country edge's client, forwarded from its FreeRADIUS or replayed after a cut: decided
 * as the front's (functions/radius/answer-client.ts), for the routers of the edge's resellers only.
 */
export const handler = endpoint('POST /api/v1/edge/radius/client', CLIENT_CONTRACT, ({ body, principal }) =>
  answerClient(body, principal.resellerIds),
);
