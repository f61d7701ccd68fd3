// PUT /api/v1/network/nas/{nas_id}/login-origin: Register the origin a hotspot's router takes logins on: the portal posts codes there only

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { updateLoginOrigin } from './branding.js';
import { BrandingParams, LoginOriginBody, LoginOriginResponse } from './schemas.js';

/** Where the hotspot's router takes logins (`link-login-only`'s origin, or coova's `http://uamip:uamport`). */
export const handler = sessionEndpoint(
  'PUT /api/v1/network/nas/{nas_id}/login-origin',
  { errors: ['ERR_NOT_FOUND'], params: BrandingParams, body: LoginOriginBody, ok: LoginOriginResponse },
  async ({ params, body, principal }) =>
    json(200, await updateLoginOrigin(principal, params.nas_id, new URL(body.login_origin).origin)),
);
