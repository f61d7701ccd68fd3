// GET /api/v1/captive/{nas_id}: RFC 8908 Captive Portal API of a hotspot (application/captive+json; ?mac= names the device)

import { clock } from '../core/clock.js';
import { notFound } from '../core/errors.js';
import { endpoint } from '../core/http.js';
import { captiveState } from './captive.js';
import { CaptiveParams, CaptiveQuery, CaptiveResponse } from './schemas.js';

/** RFC 8908: `application/captive+json`, never cached (the answer changes as the session runs). */
export const handler = endpoint(
  'GET /api/v1/captive/{nas_id}',
  {
    errors: ['ERR_NOT_FOUND'],
    params: CaptiveParams,
    query: CaptiveQuery,
    response: { status: 200, schema: CaptiveResponse, contentType: 'application/captive+json' },
  },
  async ({ params, query, event }) => {
    const sourceIp = event.requestContext?.http?.sourceIp;
    const state = await captiveState(params.nas_id, query.mac, clock.now(), sourceIp);
    if (!state) throw notFound('Hotspot');
    return {
      status: 200,
      raw: JSON.stringify(state),
      headers: { 'content-type': 'application/captive+json', 'cache-control': 'private, no-store' },
    };
  },
);
