// POST /api/v1/auth/device/revoke: Forget a device: its credential opens no session any more

import { endpoint } from '../core/http.js';
import { revokeDevice } from './devices.js';
import { DeviceTokenBody } from './schemas.js';

/**
 * Forgets a device ("not my phone" / "forget this device"): its credential opens no session
 * any more. Holding the credential is the authority; 204 whether or not it was known.
 */
export const handler = endpoint(
  'POST /api/v1/auth/device/revoke',
  { errors: ['ERR_UNAVAILABLE'], body: DeviceTokenBody, response: { status: 204 } },
  async ({ body }) => {
    await revokeDevice(body.device_token);
    return { status: 204 };
  },
);
