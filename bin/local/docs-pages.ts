// The local host's API docs: the generated OpenAPI document and Swagger UI over it.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LocalPage } from './local-page.js';
import { buildOpenApi } from './openapi.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hotspot API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#ui' });</script>
</body></html>`;

/** `/api/v1/openapi.json` (the generated contract) and `/docs` (Swagger UI over it). */
export function docsPages(): LocalPage[] {
  let doc: Promise<string> | undefined;
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return [
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      handle: async (_req, res) => {
        doc ??= buildOpenApi().then((d) => JSON.stringify(d));
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(await doc);
      },
    },
    {
      method: 'GET',
      path: '/docs',
      handle: async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(PAGE);
      },
    },
    {
      method: 'GET',
      path: '/docs/',
      handle: async (_req, res, _body, url) => {
        const name = url.pathname.slice('/docs/'.length);
        const type = ASSETS[name];
        if (!type) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'ERR_NOT_FOUND', message: 'No such file' } }));
          return;
        }
        res.writeHead(200, { 'content-type': type, 'cache-control': 'public, max-age=3600' });
        res.end(await readFile(join(dist, name)));
      },
    },
  ];
}
