// POST /api/v1/resellers/me/forfaits: Make a forfait of its own (name, price, duration, data, rates, devices, hotspots)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { OwnForfaitCreateBody, OwnForfaitQuery, OwnForfaitSchema } from './forfait-schemas.js';
import { makeOwnForfait } from './own-forfaits.js';

/** A reseller makes a forfait of its own, last in its list (an admin names the reseller). */
export const handler = sessionEndpoint(
  'POST /api/v1/resellers/me/forfaits',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_FORFAIT_OUT_OF_BOUNDS', 'ERR_FORFAIT_LIMIT'],
    query: OwnForfaitQuery,
    body: OwnForfaitCreateBody,
    created: OwnForfaitSchema,
  },
  async ({ query, body, principal }) => json(201, await makeOwnForfait(principal, query.reseller_id, body)),
);
