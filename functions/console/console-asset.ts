// GET /console/assets/{file}: The console's scripts and stylesheet (content-hashed names, cached for a year)

import { assetAnswers } from '../core/assets.js';
import { endpoint } from '../core/http.js';
import { CONSOLE_ASSETS } from './assets.generated.js';

const answer = assetAnswers(CONSOLE_ASSETS);

/** The console's scripts and stylesheet, immutable (functions/core/assets.ts). */
export const handler = endpoint(
  'GET /console/assets/{file}',
  { errors: ['ERR_NOT_FOUND'], response: { status: 200, contentType: 'text/javascript' } },
  async ({ params, headers }) => answer(params.file, headers['accept-encoding']),
);
