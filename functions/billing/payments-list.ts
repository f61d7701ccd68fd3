// GET /api/v1/payments: A reseller's payments by cursor, newest first ('paid, not connected' flagged)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { json } from '../core/http.js';
import { ResellerPaymentsPage, ResellerPaymentsQuery } from './payment-schemas.js';
import { resellerPayments } from './reseller-payments.js';

/** A reseller's payments by cursor, newest first (an admin names the reseller). */
export const handler = sessionEndpoint(
  'GET /api/v1/payments',
  { query: ResellerPaymentsQuery, ok: ResellerPaymentsPage },
  async ({ query, principal }) => {
    const resellerId = resellerInScope(principal, query.reseller_id);
    return json(200, await resellerPayments(resellerId, query.limit, query.cursor));
  },
);
