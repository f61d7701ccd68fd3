// GET /portal/assets/{file}: The captive portal's script and stylesheet (content-hashed names, cached for a year)

import { assetAnswers } from '../core/assets.js';
import { endpoint } from '../core/http.js';
import { PORTAL_ASSETS } from './assets.generated.js';

const answer = assetAnswers(PORTAL_ASSETS);

/** The portal's scripts and stylesheet, immutable (functions/core/assets.ts). */
export const handler = endpoint(
  'GET /portal/assets/{file}',
  { errors: ['ERR_NOT_FOUND'], response: { status: 200, contentType: 'text/javascript' } },
  async ({ params }) => answer(params.file),
);
