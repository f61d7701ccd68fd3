// PUT /api/v1/branding/{nas_id}: Update a hotspot's branding (owning reseller or admin)

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { updateBranding } from './branding.js';
import { BrandingBody, BrandingParams, BrandingResponse } from './schemas.js';

export const handler = sessionEndpoint(
  'PUT /api/v1/branding/{nas_id}',
  { errors: ['ERR_NOT_FOUND'], params: BrandingParams, body: BrandingBody, ok: BrandingResponse },
  async ({ params, body, principal }) => {
    // Checked by its parser here, the only function that carries one (custom-css.ts). The parser
    // is loaded by the first PUT that sets custom CSS: one that changes only colours, texts or
    // the logo starts and answers without it.
    if (body.custom_css === undefined) return json(200, await updateBranding(principal, params.nas_id, body));
    const { checkedCustomCss } = await import('./custom-css.js');
    const changes = { ...body, custom_css: checkedCustomCss(body.custom_css) };
    return json(200, await updateBranding(principal, params.nas_id, changes));
  },
);
