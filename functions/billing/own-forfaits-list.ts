// GET /api/v1/resellers/me/forfaits: A reseller's own forfaits in its order (hidden ones too) and the operator's bounds

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { OwnForfaitQuery, OwnForfaitsList } from './forfait-schemas.js';
import { ownForfaits } from './own-forfaits.js';

/** A reseller's own forfaits in its order, hidden ones included, and the operator's bounds. */
export const handler = sessionEndpoint(
  'GET /api/v1/resellers/me/forfaits',
  { query: OwnForfaitQuery, ok: OwnForfaitsList },
  async ({ query, principal }) => json(200, await ownForfaits(principal, query.reseller_id)),
);
