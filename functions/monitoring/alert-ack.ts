// PUT /api/v1/alerts/{id}/ack: Acknowledge an alert (idempotent)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { acknowledge } from './alerts.js';
import { AckBody, AlertIdParams, AlertSchema } from './schemas.js';

/** Idempotent: a second ack answers 200 with the alert as the first ack left it. */
export const handler = sessionEndpoint(
  'PUT /api/v1/alerts/{id}/ack',
  { errors: ['ERR_NOT_FOUND'], params: AlertIdParams, body: AckBody, ok: AlertSchema },
  // The body's user_id is accepted and ignored: acked_by is the token's subject.
  async ({ principal, params }) => json(200, await acknowledge(principal, params.id)),
);
