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
 */
export function assetAnswers(assets: Record<string, BuiltAsset>) {
  const bodies = new Map(
    Object.entries(assets).map(([name, a]) => [
      name,
      { type: a.type, text: Buffer.from(a.base64, 'base64').toString('utf8') },
    ]),
  );
  return (file: string | undefined) => {
    const asset = bodies.get(file ?? '');
    if (!asset) throw notFound('Asset');
    return {
      status: 200 as const,
      raw: asset.text,
      headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' },
    };
  };
}
