// POST /api/v1/payments/initiate: Open a mobile-money payment for a forfait (optional Idempotency-Key)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { validation } from '../core/errors.js';
import { json } from '../core/http.js';
import { IDEMPOTENCY_KEY, PaymentInitiateBody, PaymentInitiateResponse } from './payment-schemas.js';
import { initiatePayment } from './payments/initiate.js';

export const handler = sessionEndpoint(
  'POST /api/v1/payments/initiate',
  {
    errors: [
      'ERR_NOT_FOUND',
      'ERR_CODE_NOT_LIVE',
      'ERR_CONFLICT',
      'ERR_RATE_LIMITED',
      'ERR_IDEMPOTENCY_MISMATCH',
      'ERR_UPSTREAM',
      'ERR_UNAVAILABLE',
    ],
    body: PaymentInitiateBody,
    created: PaymentInitiateResponse,
  },
  async ({ body, headers, principal }) => {
    const key = headers['idempotency-key'];
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw validation('Invalid Idempotency-Key', [
        { path: 'headers.idempotency-key', message: '1..64 of [A-Za-z0-9_-]' },
      ]);
    }
    const out = await initiatePayment({
      subscriberId: principal.sub,
      // `SUB-<digits>` of the caller's number: where the access code is texted.
      msisdn: `+${principal.ref.slice(4)}`,
      forfaitId: body.forfait_id,
      provider: body.provider,
      ...(body.nas_id ? { nasId: body.nas_id } : {}),
      ...(body.code_delivery === 'screen' ? { codeSms: false } : {}),
      ...(body.topup_code ? { topupCode: body.topup_code } : {}),
      ...(key ? { idempotencyKey: key } : {}),
    });
    return json(201, out);
  },
);
