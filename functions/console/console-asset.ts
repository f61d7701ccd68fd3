import { notFound } from '../core/errors.js';
import { endpoint } from '../core/http.js';
import { CONSOLE_ASSETS } from './assets.generated.js';

const bodies = new Map(
  Object.entries(CONSOLE_ASSETS).map(([name, a]) => [
    name,
    { ...a, text: Buffer.from(a.base64, 'base64').toString('utf8') },
  ]),
);

/**
 * The console's scripts and stylesheet. Their names carry a hash of their content, so a browser
 * keeps them for a year without asking again: a new build is a new name in the page.
 */
export const handler = endpoint(
  'GET /console/assets/{file}',
  { errors: ['ERR_NOT_FOUND'], response: { status: 200, contentType: 'text/javascript' } },
  async ({ params }) => {
    const asset = bodies.get(params.file ?? '');
    if (!asset) throw notFound('Asset');
    return {
      status: 200,
      raw: asset.text,
      headers: {
        'content-type': asset.type,
        'cache-control': 'public, max-age=31536000, immutable',
      },
    };
  },
);
