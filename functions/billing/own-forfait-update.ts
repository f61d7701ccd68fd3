// PUT /api/v1/resellers/me/forfaits/{id}: Change, move or hide one of its own forfaits

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import {
  OwnForfaitParams,
  OwnForfaitQuery,
  OwnForfaitSchema,
  OwnForfaitUpdateBody,
} from './forfait-schemas.js';
import { changeOwnForfait } from './own-forfaits.js';

/**
 * Changes a reseller's own forfait: its offer, hotspots, place in the list, or hidden. Codes
 * already sold keep the offer they were sold with (copied onto them).
 */
export const handler = sessionEndpoint(
  'PUT /api/v1/resellers/me/forfaits/{id}',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_FORFAIT_OUT_OF_BOUNDS', 'ERR_CONFLICT'],
    params: OwnForfaitParams,
    query: OwnForfaitQuery,
    body: OwnForfaitUpdateBody,
    ok: OwnForfaitSchema,
  },
  async ({ params, query, body, principal }) =>
    json(200, await changeOwnForfait(principal, query.reseller_id, params.id, body)),
);
