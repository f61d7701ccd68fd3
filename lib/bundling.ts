// How every function is bundled: esbuild's options, and the stand-ins that replace dependencies in the bundles.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Route } from '../functions/routes.js';
import { CHUNK_EXTERNALS } from './lazy-chunks.js';

/** A module of lib/lambda that replaces a dependency in the bundles. */
const standIn = (file: string) => fileURLToPath(new URL(`./lambda/${file}`, import.meta.url));

/**
 * How every function is bundled: ESM, minified, for Node 22, with the AWS SDK v3 inside the
 * bundle (a pinned, tested SDK rather than whatever the runtime ships). `npm run bench` bundles
 * with these same options, so its sizes are the deployed sizes.
 */
export const ESBUILD = {
  format: 'esm' as const,
  target: 'node22',
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  // ESM bundles still meet CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  /**
   * Stand-ins for modules a Lambda function never needs (each file says why): the SDK's
   * credential chain (Lambda's credentials are in the environment), its event-stream support
   * and browser user-agent parser (both behind a dynamic import), the endpoint-discovery LRU,
   * and postcss's source maps; and two Node built-ins whose loading costs start-up time for
   * nothing: `node:stream/web`, which middy imports for response streaming only, and
   * `node:process`, whose module namespace loads `process.report` (both stand-ins hand out the
   * real objects).
   */
  alias: {
    'node:stream/web': standIn('lazy-web-streams.ts'),
    'node:process': standIn('process.ts'),
    '@aws-sdk/credential-provider-node': standIn('credentials.ts'),
    '@smithy/core/event-streams': standIn('no-event-streams.ts'),
    bowser: standIn('no-bowser.ts'),
    'mnemonist/lru-cache': standIn('lru-cache.ts'),
    'source-map-js': standIn('no-source-maps.ts'),
  } as Record<string, string>,
  /** Lazy chunks (lib/lazy-chunks.ts) stay imports: each is built beside the bundle after bundling. */
  external: CHUNK_EXTERNALS,
};

/**
 * What a route's function is bundled with besides ESBUILD: its own row of the route table as
 * `HOTSPOT_ROUTE`, which `findRoute` (functions/routes.ts) returns instead of searching the
 * table, so no bundle carries the whole table (16 KB minified, in every function's start-up).
 * A handler that names another row fails at its first import (the bundle tests run every one).
 */
export const routeDefine = (route: Route): Record<string, string> => ({
  HOTSPOT_ROUTE: JSON.stringify(JSON.stringify(route)),
});

/** The command that builds a bundle's lazy chunks in its output folder (lib/build-chunks.ts). */
export function chunkCommand(outputDir: string): string {
  const script = fileURLToPath(new URL('./build-chunks.ts', import.meta.url));
  // tsx's only entry is its loader (`--import tsx`), so its path is taken from its package.json.
  const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs');
  return `"${process.execPath}" --import "${tsx}" "${script}" "${outputDir}"`;
}

export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: ESBUILD.target,
  minify: ESBUILD.minify,
  sourceMap: ESBUILD.sourcemap,
  mainFields: ESBUILD.mainFields,
  banner: ESBUILD.banner,
  esbuildArgs: Object.fromEntries(Object.entries(ESBUILD.alias).map(([from, to]) => [`--alias:${from}`, to])),
  externalModules: ESBUILD.external,
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir: string, outputDir: string) => [chunkCommand(outputDir)],
  },
  // Local esbuild (a devDependency): no Docker needed to synth or deploy.
  forceDockerBundling: false,
};
