// POST /api/v1/vouchers/generate: Generate 1 to 1000 vouchers of a forfait for a reseller

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { VoucherGenerateBody, VoucherGenerateResponse } from './voucher-schemas.js';
import { generateVouchers } from './vouchers.js';

export const handler = sessionEndpoint(
  'POST /api/v1/vouchers/generate',
  { errors: ['ERR_NOT_FOUND'], body: VoucherGenerateBody, created: VoucherGenerateResponse },
  async ({ body }) =>
    json(
      201,
      await generateVouchers({
        forfaitId: body.forfait_id,
        resellerId: body.reseller_id,
        n: body.n,
        codeLength: body.code_length,
        prefix: body.prefix,
      }),
    ),
);
