// The answer to an accounting call, the front's and an edge's alike.

import { clock } from '../core/clock.js';
import { json, type Reply } from '../core/http.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { noteHeard } from '../routers/heard.js';
import { account, reportOf } from './accounting.js';
import { type RestBody, requestAttributes } from './attributes.js';
import { refusedInMemory, requestRouter, routerOfRequest } from './identity.js';
import { RestRequest } from './schemas.js';

/** The contract of an accounting call, the front's and an edge's alike. */
export const ACCOUNTING_CONTRACT = { body: RestRequest, response: { status: 204 } } as const;

/**
 * FreeRADIUS's accounting call. 204 once the report is stored (or changed nothing); any
 * failure answers 5xx, so FreeRADIUS sends no Accounting-Response and the NAS resends. A report
 * the API cannot use (`Acct-Status-Type = Failed`, no status, no NAS id) is answered 204 and
 * logged: refusing it would only make the NAS resend it forever.
 * A report from a router that may not speak for its NAS-Identifier (functions/radius/identity.ts)
 * is answered 204 too, and nothing of it is written (the refusal is logged).
 * `edgeResellers`: sent by an in-country edge, which speaks for these resellers' routers only.
 */
export async function answerAccounting(body: RestBody, edgeResellers?: readonly string[]): Promise<Reply> {
  const attrs = requestAttributes(body);
  // A router the front holds as revoked, or speaking for a NAS id not its own: no read.
  if (refusedInMemory(attrs, 'accounting')) {
    countMetric('RadiusRouterRefused');
    return json(204, undefined);
  }
  const router = routerOfRequest(attrs, 'accounting', edgeResellers);
  const report = reportOf(attrs);
  if (!report) {
    // The router first: a refused one's report is counted as such, not as ignored.
    const from = await requestRouter(attrs, 'accounting', edgeResellers);
    if ('refused' in from) {
      countMetric('RadiusRouterRefused');
      return json(204, undefined);
    }
    await noteHeard(from.router, clock.now());
    log.info('radius accounting ignored', {
      status: attrs.get('Acct-Status-Type')?.slice(0, 32),
      nasId: attrs.get('NAS-Identifier')?.slice(0, 64),
    });
    countMetric('RadiusAccountingIgnored');
    return json(204, undefined);
  }
  // The router is read with the session and its code, and judged first (accounting.ts).
  const now = clock.now();
  const outcome = await account(report, now, router);
  if (typeof outcome === 'object' && 'routerRefused' in outcome) {
    countMetric('RadiusRouterRefused');
    return json(204, undefined);
  }
  // Its report, stored or not: the router is alive (functions/routers/heard.ts).
  await noteHeard(router.accepted, now);
  countMetric('RadiusAccounting');
  if (typeof outcome !== 'string')
    log.info('nas restart closed sessions', { nasId: report.nasId, ...outcome });
  return json(204, undefined);
}
