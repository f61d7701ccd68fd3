// POST /api/v1/payments/webhook: The payment aggregator's delivery (at least once)

import { endpoint, json } from '../core/http.js';
import { WebhookBody, WebhookResponse } from './payment-schemas.js';
import { webhookAnswer } from './payments/webhook.js';

/** The aggregator's delivery (shared secret checked by the middleware); at least once. */
export const handler = endpoint(
  'POST /api/v1/payments/webhook',
  {
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT', 'ERR_UPSTREAM', 'ERR_UNAVAILABLE'],
    body: WebhookBody,
    ok: WebhookResponse,
  },
  async ({ body }) => {
    const { body: answer } = await webhookAnswer({
      event_id: body.event_id,
      transaction_id: body.transaction_id,
      status: body.status,
      amount_fcfa: body.amount_fcfa,
      provider: body.provider,
      ...(body.provider_reference ? { provider_reference: body.provider_reference } : {}),
    });
    return json(200, answer);
  },
);
