import { endpoint, json } from '../core/http.js';
import { updateBranding } from './branding.js';
import { BrandingBody, BrandingParams, BrandingResponse } from './schemas.js';

export const handler = endpoint(
  'PUT /api/v1/branding/{nas_id}',
  {
    errors: ['ERR_NOT_FOUND'],
    params: BrandingParams,
    body: BrandingBody,
    response: { status: 200, schema: BrandingResponse },
  },
  async ({ params, body, principal }) => json(200, await updateBranding(principal, params.nas_id, body)),
);
