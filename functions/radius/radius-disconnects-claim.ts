// POST /api/v1/radius/disconnects/claim: The Disconnect-Requests (RFC 5176) the RADIUS front is to send to routers now, each claimed once

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { claimDisconnects } from './disconnect.js';
import { ClaimBody, ClaimResponse } from './schemas.js';

/** The relay next to FreeRADIUS polls this: the Disconnect-Requests it is to send now. */
export const handler = endpoint(
  'POST /api/v1/radius/disconnects/claim',
  { body: ClaimBody, ok: ClaimResponse },
  async ({ body }) => json(200, { items: await claimDisconnects(clock.now(), body.max ?? 10) }),
);
