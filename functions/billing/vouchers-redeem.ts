// POST /api/v1/vouchers/redeem: Redeem a voucher code for an access entitlement

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { EntitlementResponse, VoucherRedeemBody } from './voucher-schemas.js';
import { redeem } from './vouchers.js';

export const handler = sessionEndpoint(
  'POST /api/v1/vouchers/redeem',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_RATE_LIMITED'],
    body: VoucherRedeemBody,
    ok: EntitlementResponse,
  },
  async ({ body, principal }) => {
    return json(200, await redeem(body.code, principal.sub));
  },
);
