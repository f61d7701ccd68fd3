import { endpoint, json } from '../core/http.js';
import { acknowledge } from './alerts.js';
import { AckBody, AlertIdParams, AlertSchema } from './schemas.js';

/** Idempotent: a second ack answers 200 with the alert as the first ack left it. */
export const handler = endpoint(
  'PUT /api/v1/alerts/{id}/ack',
  { params: AlertIdParams, body: AckBody, response: { status: 200, schema: AlertSchema } },
  async ({ principal, params, body }) => {
    return json(200, await acknowledge(principal, params.id, body.user_id));
  },
);
