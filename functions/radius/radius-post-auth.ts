import { endpoint, json } from '../core/http.js';
import { log } from '../core/log.js';
import { countMetric } from '../core/metrics.js';
import { normalizeCode, requestAttributes } from './attributes.js';
import { requestRouter } from './identity.js';
import { RestRequest } from './schemas.js';

/**
 * FreeRADIUS's post-auth call, after a login it accepted (its password matched). Authorize
 * already recorded the login on the code; this counts the logins that completed, per NAS, for
 * the operations dashboard. FreeRADIUS treats a failure here as harmless.
 */
export const handler = endpoint(
  'POST /api/v1/radius/post-auth',
  { body: RestRequest, response: { status: 204 } },
  async ({ body }) => {
    const attrs = requestAttributes(body);
    // Authorize refused such a router already; nothing is counted for one here either.
    if ('refused' in (await requestRouter(attrs, 'post-auth'))) return json(204, undefined);
    log.info('radius login', {
      nasId: attrs.get('NAS-Identifier'),
      // The first characters only: the code is a credential.
      code: `${normalizeCode(attrs.get('User-Name') ?? '').slice(0, 3)}…`,
    });
    countMetric('RadiusLogin');
    return json(204, undefined);
  },
);
