// GET /api/v1/payments/unused: Paid, never connected: a reseller's completed payments whose code had no login within 15 minutes

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { unusedPaymentsOf } from './paid-not-connected.js';
import { UnusedPaymentsQuery, UnusedPaymentsResponse } from './payment-schemas.js';

/** "Payé, pas connecté": the reseller's completed payments whose code had no login within 15 minutes. */
export const handler = sessionEndpoint(
  'GET /api/v1/payments/unused',
  { query: UnusedPaymentsQuery, ok: UnusedPaymentsResponse },
  async ({ query, principal }) => json(200, await unusedPaymentsOf(principal, query.reseller_id)),
);
