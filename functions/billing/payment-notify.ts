// POST /api/v1/payments/notify/{provider}: A payment provider's signed notification (cinetpay, fedapay): confirmed with its status API

import { AppError } from '../core/errors.js';
import { endpoint, json, MAX_BODY_BYTES } from '../core/http.js';
import { NotifyResponse } from './payment-schemas.js';
import { handleGatewayNotification } from './payments/notification.js';

/**
 * A payment provider's notification (CinetPay's form, FedaPay's event), on its own function
 * URL: no session, its signature is the authentication, checked on the raw body before any read
 * or write. The provider is the last path segment (a function URL passes no path parameters).
 */
export const handler = endpoint(
  'POST /api/v1/payments/notify/{provider}',
  {
    errors: [
      'ERR_SIGNATURE_INVALID',
      'ERR_SIGNATURE_STALE',
      'ERR_NOT_FOUND',
      'ERR_CONFLICT',
      'ERR_NOTIFICATION_REPLAYED',
      'ERR_AMOUNT_MISMATCH',
      'ERR_CURRENCY_MISMATCH',
      'ERR_UPSTREAM',
      'ERR_UNAVAILABLE',
    ],
    ok: NotifyResponse,
  },
  async ({ event, headers }) => {
    const raw = event.body ?? '';
    const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
      throw new AppError('ERR_PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
    }
    const provider = event.pathParameters?.provider ?? event.rawPath.split('/').pop() ?? '';
    return json(200, await handleGatewayNotification(provider, headers, body));
  },
);
