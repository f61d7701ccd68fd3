// GET /api/v1/vouchers: List a reseller's vouchers (a reseller sees its own)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { resellerInScope } from '../core/access.js';
import { json } from '../core/http.js';
import { VouchersPage, VouchersQuery } from './voucher-schemas.js';
import { listVouchers } from './vouchers.js';

/** An admin names the reseller; a reseller sees its own (another's: 403). */
export const handler = sessionEndpoint(
  'GET /api/v1/vouchers',
  { query: VouchersQuery, ok: VouchersPage },
  async ({ query, principal }) => {
    const resellerId = resellerInScope(principal, query.reseller_id);
    return json(200, await listVouchers(resellerId, query.status, query.page, query.page_size, query.cursor));
  },
);
