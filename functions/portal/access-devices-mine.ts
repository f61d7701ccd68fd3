// GET /api/v1/access/devices/mine: The devices remembered for MAC login on the caller's codes

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { myDevices } from './remembered-devices.js';
import { MyDevices } from './schemas.js';

/** The devices remembered for the caller's codes, each with the hotspot and when it is forgotten. */
export const handler = sessionEndpoint(
  'GET /api/v1/access/devices/mine',
  { ok: MyDevices },
  async ({ principal }) => json(200, await myDevices(principal.sub)),
);
