// POST /api/v1/vouchers/batches: Generate 1 to 1000 vouchers of a forfait (the owning reseller or an admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { assertActsFor } from '../core/access.js';
import { json } from '../core/http.js';
import { VoucherGenerateBody, VoucherGenerateResponse } from './voucher-schemas.js';
import { generateVouchers } from './vouchers.js';

/**
 * A reseller makes a batch of its own vouchers (the console's Codes screen); an admin may make
 * one for any reseller. `POST /api/v1/vouchers/generate` stays admin-only, as the API's contract
 * says: this is the same making, for the owning reseller. A voucher is worth nothing until it
 * is redeemed, and its price counts in the month's revenue (and the operator's share) then.
 */
export const handler = sessionEndpoint(
  'POST /api/v1/vouchers/batches',
  { errors: ['ERR_NOT_FOUND'], body: VoucherGenerateBody, created: VoucherGenerateResponse },
  async ({ body, principal }) => {
    assertActsFor(principal, body.reseller_id);
    return json(
      201,
      await generateVouchers({
        forfaitId: body.forfait_id,
        resellerId: body.reseller_id,
        n: body.n,
        codeLength: body.code_length,
        prefix: body.prefix,
      }),
    );
  },
);
