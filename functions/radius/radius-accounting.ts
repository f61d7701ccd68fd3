// POST /api/v1/radius/accounting: Accounting Start, Interim-Update, Stop, Accounting-On/Off: usage counted exactly once

import { endpoint } from '../core/http.js';
import { ACCOUNTING_CONTRACT, answerAccounting } from './answers.js';

/** The front's FreeRADIUS asks its task's service (functions/radius/answers.ts). */
export const handler = endpoint('POST /api/v1/radius/accounting', ACCOUNTING_CONTRACT, ({ body }) =>
  answerAccounting(body),
);
