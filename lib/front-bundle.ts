// The RADIUS front's service bundled as one ESM file beside the FreeRADIUS configuration run.sh starts.

/**
 * The RADIUS front's service (functions/front/main.ts) as one ESM bundle, `service/main.mjs`
 * beside deploy/freeradius's run.sh, which starts it: built into the image's build context at
 * synth (lib/radius-front.ts) and into `npm start`'s run folder (bin/local/freeradius.ts), with
 * the functions' esbuild options (lib/bundling.ts) but the SDK's whole credential chain: in a
 * Fargate task the role's credentials come from the container endpoint, not the environment.
 *
 *   node --import tsx lib/front-bundle.ts <folder>     # writes <folder>/main.mjs and its chunks
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ESBUILD } from './bundling.js';
import { buildChunks } from './lazy-chunks.js';

const ENTRY = fileURLToPath(new URL('../functions/front/main.ts', import.meta.url));

/** The functions' aliases but the credential chain's stand-in (Lambda-only). */
const alias = Object.fromEntries(
  Object.entries(ESBUILD.alias).filter(([from]) => from !== '@aws-sdk/credential-provider-node'),
);

/** Bundles the service into `outDir` (main.mjs and the lazy chunks it imports). */
export async function bundleFrontService(outDir: string): Promise<string> {
  const outfile = join(outDir, 'main.mjs');
  await build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: ESBUILD.format,
    target: ESBUILD.target,
    minify: ESBUILD.minify,
    mainFields: ESBUILD.mainFields,
    banner: { js: ESBUILD.banner },
    alias,
    external: ESBUILD.external,
    logLevel: 'warning',
  });
  await buildChunks(outDir, { ...ESBUILD, alias });
  return outfile;
}

/**
 * A build context for the front's image: deploy/freeradius with the service's bundle in
 * `service/` (a new temporary folder; synthesis is synchronous, so the bundling runs as a child).
 */
export function frontImageContext(freeradiusDir: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hotspot-radius-front-'));
  cpSync(freeradiusDir, dir, { recursive: true });
  const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs');
  execFileSync(process.execPath, ['--import', tsx, fileURLToPath(import.meta.url), join(dir, 'service')], {
    stdio: 'inherit',
  });
  return dir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: front-bundle <folder>');
  await bundleFrontService(dir);
}
