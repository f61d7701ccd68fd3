import { endpoint, json } from '../core/http.js';
import { EntitlementResponse, VoucherRedeemBody } from './schemas.js';
import { redeem } from './vouchers.js';

export const handler = endpoint(
  'POST /api/v1/vouchers/redeem',
  { body: VoucherRedeemBody, response: { status: 200, schema: EntitlementResponse } },
  async ({ body, principal }) => {
    if (!principal) throw new Error('auth middleware did not run');
    return json(200, await redeem(body.code, principal.sub));
  },
);
