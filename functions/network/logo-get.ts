// GET /api/v1/branding/{nas_id}/logo/{hash}: A hotspot's uploaded logo (immutable: a new upload has a new hash)

import { endpoint } from '../core/http.js';
import { servedLogo } from './branding.js';
import { LogoParams } from './schemas.js';

/**
 * An uploaded logo, from the platform's own origin: its path names its content's hash, so it is
 * cached for a year; `nosniff` and a CSP that runs nothing, should a browser open it as a page.
 */
export const handler = endpoint(
  'GET /api/v1/branding/{nas_id}/logo/{hash}',
  {
    errors: ['ERR_NOT_FOUND'],
    params: LogoParams,
    response: { status: 200, contentType: 'image/png' },
  },
  async ({ params }) => {
    const logo = await servedLogo(params.nas_id, params.hash);
    return {
      status: 200,
      bytes: Buffer.from(logo.bytes),
      headers: {
        'content-type': logo.type,
        'cache-control': 'public, max-age=31536000, immutable',
        'content-security-policy': "default-src 'none'; sandbox",
      },
    };
  },
);
