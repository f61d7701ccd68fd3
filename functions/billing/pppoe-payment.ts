// Route handler: POST /api/v1/pppoe/payments (a subscriber pays its next PPPoE period by mobile money).

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { validation } from '../core/errors.js';
import { json } from '../core/http.js';
import { IDEMPOTENCY_KEY, PaymentInitiateResponse } from './payment-schemas.js';
import { renewByMobileMoney } from './pppoe-renewals.js';
import { PppoePaymentBody } from './pppoe-schemas.js';

/**
 * The pay page's payment: the caller (signed in with its phone number by OTP) pays the next
 * period of the PPPoE subscriber of that number; another number's subscriber is "not found".
 * Completed, the period is sold (functions/billing/payments/renewal-credit.ts).
 */
export const handler = sessionEndpoint(
  'POST /api/v1/pppoe/payments',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_IDEMPOTENCY_MISMATCH', 'ERR_UPSTREAM', 'ERR_UNAVAILABLE'],
    body: PppoePaymentBody,
    created: PaymentInitiateResponse,
  },
  async ({ body, headers, principal }) => {
    const key = headers['idempotency-key'];
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      throw validation('Invalid Idempotency-Key', [
        { path: 'headers.idempotency-key', message: '1..64 of [A-Za-z0-9_-]' },
      ]);
    }
    const out = await renewByMobileMoney({
      callerSub: principal.sub,
      // `SUB-<digits>` of the caller's number: it must be the subscriber's.
      msisdn: `+${principal.ref.slice(4)}`,
      subscriberId: body.subscriber_id,
      provider: body.provider,
      ...(key ? { idempotencyKey: key } : {}),
    });
    return json(201, out);
  },
);
