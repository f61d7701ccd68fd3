// GET /api/v1/billing/sales: A reseller's sales by day, hotspot and forfait (from its daily counters; up to 93 days)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { json } from '../core/http.js';
import { salesBetween } from '../store/sales.js';
import { resellerCurrency } from './currency.js';
import { SalesQuery, SalesResponse } from './revenue-schemas.js';

/** A reseller's sales by day, hotspot and forfait, from its daily counters (one Query). */
export const handler = sessionEndpoint(
  'GET /api/v1/billing/sales',
  { query: SalesQuery, ok: SalesResponse },
  async ({ query, principal }) => {
    const resellerId = resellerInScope(principal, query.reseller_id);
    const [days, currency] = await Promise.all([
      salesBetween(resellerId, query.from, query.to),
      resellerCurrency(resellerId),
    ]);
    return json(200, {
      reseller_id: resellerId,
      currency,
      from: query.from,
      to: query.to,
      days: days.map(({ reseller_id: _r, ...d }) => d),
    });
  },
);
