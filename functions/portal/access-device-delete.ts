// DELETE /api/v1/access/{code}/devices/{mac}: Forget a device of the caller's own code: its next MAC login is refused

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { clock } from '../core/clock.js';
import { json } from '../core/http.js';
import { forgetMyDevice } from './remembered-devices.js';
import { DeviceParams, ForgetResult } from './schemas.js';

/** Forgets a device of the caller's own code (its subscriber, its reseller, an admin); 404 otherwise. */
export const handler = sessionEndpoint(
  'DELETE /api/v1/access/{code}/devices/{mac}',
  { errors: ['ERR_NOT_FOUND'], params: DeviceParams, ok: ForgetResult },
  async ({ principal, params }) =>
    json(200, await forgetMyDevice(principal, params.code, params.mac, clock.now())),
);
