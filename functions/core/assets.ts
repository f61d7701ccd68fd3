// A built asset (the portal's, the console's) answered gzipped or plain, with its cache headers.

import { gzipSync } from 'node:zlib';
import { notFound } from './errors.js';

/** A built asset as bin/portal-assets.ts and bin/console-assets.ts generate it. */
export interface BuiltAsset {
  type: string;
  /** The body, base64 of UTF-8. */
  base64: string;
}

/**
 * The answer for a built script or stylesheet by file name: decoded once per container. Their
 * names carry a hash of their content, so a browser keeps them for a year without asking again:
 * a new build is a new name in the page. An unknown name is a 404.
 *
 * Gzipped for a browser that accepts it (every one does): neither the local server nor API
 * Gateway's HTTP API compresses, and on a 2G link (250 kbit/s) the console's scripts take a
 * third of the time gzipped. Each file is compressed once per container, at its first request.
 */
export function assetAnswers(assets: Record<string, BuiltAsset>) {
  const bodies = new Map(
    Object.entries(assets).map(([name, a]) => [
      name,
      {
        type: a.type,
        text: Buffer.from(a.base64, 'base64').toString('utf8'),
        gzip: undefined as Buffer | undefined,
      },
    ]),
  );
  return (file: string | undefined, acceptEncoding = '') => {
    const asset = bodies.get(file ?? '');
    if (!asset) throw notFound('Asset');
    const headers = {
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
    };
    if (/\bgzip\b/.test(acceptEncoding)) {
      asset.gzip ??= gzipSync(asset.text, { level: 9 });
      return { status: 200 as const, bytes: asset.gzip, headers: { ...headers, 'content-encoding': 'gzip' } };
    }
    return { status: 200 as const, raw: asset.text, headers };
  };
}
