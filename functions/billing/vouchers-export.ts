// GET /api/v1/vouchers/export: Export a voucher batch as CSV

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { VoucherExportQuery } from './voucher-schemas.js';
import { exportBatchCsv } from './vouchers.js';

/** A generation batch as CSV, for printing; the owning reseller or an admin. */
export const handler = sessionEndpoint(
  'GET /api/v1/vouchers/export',
  {
    errors: ['ERR_NOT_FOUND'],
    query: VoucherExportQuery,
    response: { status: 200, contentType: 'text/csv' },
  },
  async ({ query, principal }) => ({
    status: 200,
    raw: await exportBatchCsv(query.batch_id, principal, query.lang),
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="vouchers-${query.batch_id}.csv"`,
    },
  }),
);
