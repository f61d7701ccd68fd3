// PUT /api/v1/branding/{nas_id}/logo: Upload a hotspot's logo (PNG, JPEG or WebP, 40 KB at most), served from the platform's origin

import { sessionEndpoint } from '../auth/session-endpoint.js';
import { json } from '../core/http.js';
import { uploadLogo } from './branding.js';
import { BrandingParams, BrandingResponse, LogoBody } from './schemas.js';

/** The file checked by its bytes (network/logo.ts); the branding then names it. */
export const handler = sessionEndpoint(
  'PUT /api/v1/branding/{nas_id}/logo',
  { errors: ['ERR_NOT_FOUND'], params: BrandingParams, body: LogoBody, ok: BrandingResponse },
  async ({ params, body, principal }) => json(200, await uploadLogo(principal, params.nas_id, body.image)),
);
