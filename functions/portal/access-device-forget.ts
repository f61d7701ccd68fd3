// POST /api/v1/access/devices/forget: Forget a device remembered for a code (the portal, by whoever holds the code)

import { clock } from '../core/clock.js';
import { endpoint, json } from '../core/http.js';
import { forgetDevice } from './remembered-devices.js';
import { DeviceBody, ForgetResult } from './schemas.js';

/** Public: the portal's "Oublier cet appareil", by whoever holds the code. Idempotent. */
export const handler = endpoint(
  'POST /api/v1/access/devices/forget',
  { body: DeviceBody, ok: ForgetResult, errors: ['ERR_NOT_FOUND'] },
  async ({ body, event }) =>
    json(200, await forgetDevice(body, event.requestContext?.http?.sourceIp ?? 'unknown', clock.now())),
);
