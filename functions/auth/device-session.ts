// POST /api/v1/auth/device/session: Exchange a device credential for a session token, without an SMS

import { endpoint, json } from '../core/http.js';
import { deviceSession } from './devices.js';
import { DeviceSessionResponse, DeviceTokenBody } from './schemas.js';

/** A remembered device gets a session token without an SMS; 401 once it is forgotten. */
export const handler = endpoint(
  'POST /api/v1/auth/device/session',
  { errors: ['ERR_UNAUTHENTICATED', 'ERR_UNAVAILABLE'], body: DeviceTokenBody, ok: DeviceSessionResponse },
  async ({ body }) => json(200, await deviceSession(body.device_token)),
);
