// POST /api/v1/access/devices: Remember a device for MAC login with its code (the portal, with the subscriber consent; at most max_devices)

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { rememberDevice } from './remembered-devices.js';
import { DeviceBody, RememberResult } from './schemas.js';

/** Public: the portal binds the device (its MAC, from the router) to a code, with the subscriber's consent. */
export const handler = endpoint(
  'POST /api/v1/access/devices',
  {
    body: DeviceBody,
    ok: RememberResult,
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_DEVICE_LIMIT'],
  },
  async ({ body, event }) =>
    json(200, await rememberDevice(body, event.requestContext?.http?.sourceIp ?? 'unknown', clock.now())),
);
