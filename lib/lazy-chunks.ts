// The lazy chunks: large self-contained modules on rare paths, built beside the bundles that import them.

/**
 * Lazy chunks: a module a few functions load only on a rare path, shipped as a file of its own
 * beside the function's bundle instead of inside it.
 *
 * Why: a dynamic `import()` of a bundled module still puts its code in the one bundle file, and
 * Node compiles the whole file at start. The certificate authority (@peculiar/x509 and its ASN.1
 * stack, about 230 KB minified) is needed only when a RadSec certificate is issued, yet it made
 * the functions that can issue one start 10 % slower than the others. So its import stays
 * external in the bundle (`import('./ca.mjs')`), and this step builds the chunk next to
 * `index.mjs` for exactly the bundles that reference it. The CDK runs it after bundling
 * (`BUNDLING.commandHooks`, lib/bundling.ts); `npm run bench` runs it on its own bundles, so the
 * bench measures what is deployed.
 *
 * A chunk is a self-contained module: it may import packages and Node built-ins, not the
 * project's stateful modules (config, clients), which would then exist twice.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const source = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Each chunk, by the name a bundle imports it as, with its source. */
export const LAZY_CHUNKS: Record<string, string> = {
  'ca.mjs': source('functions/routers/ca.mts'),
  'sns-client.mjs': source('functions/core/sns-client.mts'),
  'metrics-emf.mjs': source('functions/core/metrics-emf.mts'),
  'routeros-script.mjs': source('functions/routers/routeros-script.mts'),
  'phone.mjs': source('functions/core/phone.mts'),
  'logo-image.mjs': source('functions/network/logo-image.mts'),
  'lambda-client.mjs': source('functions/routers/lambda-client.mts'),
};

/** What the bundles leave as an import: each chunk by its relative path. */
export const CHUNK_EXTERNALS = Object.keys(LAZY_CHUNKS).map((name) => `./${name}`);

/** The chunks the bundle files in `dir` import (the `.mjs` files other than the chunks themselves). */
function chunksReferenced(dir: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.mjs') || file in LAZY_CHUNKS) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const name of Object.keys(LAZY_CHUNKS)) if (text.includes(`"./${name}"`)) names.add(name);
  }
  return [...names];
}

/**
 * Builds, into `dir`, every chunk its bundles import, with the bundles' own esbuild options.
 * Returns their names.
 */
export async function buildChunks(
  dir: string,
  options: { target: string; banner: string; alias: Record<string, string> },
): Promise<string[]> {
  const names = chunksReferenced(dir);
  for (const name of names)
    await build({
      entryPoints: [LAZY_CHUNKS[name] as string],
      outfile: join(dir, name),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: options.target,
      minify: true,
      banner: { js: options.banner },
      alias: options.alias,
      logLevel: 'warning',
    });
  return names;
}
