import { clock } from '../core/clock.js';
import { validation } from '../core/errors.js';
import { endpoint, json } from '../core/http.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { account, reportOf } from './accounting.js';
import { requestAttributes } from './attributes.js';
import { requestRouter } from './identity.js';
import { RestRequest } from './schemas.js';

/**
 * FreeRADIUS's accounting call. 204 once the report is stored (or changed nothing); any
 * failure answers 5xx, so FreeRADIUS sends no Accounting-Response and the NAS resends. A report
 * from a router that may not speak for its NAS-Identifier (functions/radius/identity.ts) is
 * answered 204 too, so that the router stops resending it, and nothing of it is written (the
 * refusal is logged).
 */
export const handler = endpoint(
  'POST /api/v1/radius/accounting',
  { body: RestRequest, response: { status: 204 } },
  async ({ body }) => {
    const attrs = requestAttributes(body);
    const from = await requestRouter(attrs, 'accounting');
    if ('refused' in from) {
      countMetric('RadiusRouterRefused');
      return json(204, undefined);
    }
    const report = reportOf(attrs);
    if (!report)
      throw validation(
        'Acct-Status-Type must be Start, Interim-Update, Stop, Accounting-On or Accounting-Off',
      );
    const outcome = await account({ ...report, routerResellerId: from.router.reseller_id }, clock.now());
    countMetric('RadiusAccounting');
    if (typeof outcome !== 'string')
      log.info('nas restart closed sessions', { nasId: report.nasId, ...outcome });
    return json(204, undefined);
  },
);
