// POST /api/v1/edge/radius/accounting: An edge's accounting, forwarded or replayed in order after a cut: usage counted exactly once

import { endpoint } from '../core/http.js';
import { ACCOUNTING_CONTRACT, answerAccounting } from '../radius/answers.js';
import './edge-auth.js';

/**
 * An in-country edge's accounting, forwarded from its FreeRADIUS or replayed after a cut: decided
 * as the front's (functions/radius/answers.ts), for the routers of the edge's resellers only.
 */
export const handler = endpoint(
  'POST /api/v1/edge/radius/accounting',
  ACCOUNTING_CONTRACT,
  ({ body, principal }) => answerAccounting(body, principal.resellerIds),
);
