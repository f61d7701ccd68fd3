// GET /api/v1/access/mine: The caller's access codes with time left (at one hotspot with ?nas_id=)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { myCodes } from './access.js';
import { MyCodes, MyCodesQuery } from './schemas.js';

/** The caller's codes with time left: the portal sends a returning subscriber straight to "connect". */
export const handler = sessionEndpoint(
  'GET /api/v1/access/mine',
  { query: MyCodesQuery, ok: MyCodes },
  async ({ query, principal }) => json(200, await myCodes(principal.sub, query.nas_id, clock.now())),
);
