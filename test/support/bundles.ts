/**
 * Every function bundled as the CDK stack bundles it (lib/bundling.ts), weighed: shared by the
 * bench (bench/bundle.ts: sizes and import times) and the tests that build bundles (their
 * sizes, stand-ins, lazy chunks, and the bundles run against local services).
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { ESBUILD, routeDefine } from '../../lib/bundling.js';
import { buildChunks } from '../../lib/lazy-chunks.js';

export interface BundleFigure {
  name: string;
  minifiedBytes: number;
  gzipBytes: number;
  file: string;
}

/** Bundles `entry` to `<outDir>/<name>.mjs` for Node with `options`, and weighs the file. */
export async function bundleWith(
  entry: string,
  outDir: string,
  name: string,
  options: Omit<BuildOptions, 'entryPoints' | 'outfile' | 'bundle' | 'platform' | 'logLevel'>,
): Promise<BundleFigure> {
  mkdirSync(outDir, { recursive: true });
  const file = resolve(outDir, `${name}.mjs`);
  await build({
    ...options,
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    logLevel: 'silent',
  });
  return { name, minifiedBytes: statSync(file).size, gzipBytes: gzipSync(readFileSync(file)).length, file };
}

/**
 * The CDK stack's own esbuild options (lib/bundling.ts) as esbuild's API takes them; `define`:
 * a route's own row (`defineFor`).
 */
export const functionBuildOptions = (external: string[] = [], define: Record<string, string> = {}) => ({
  define,
  format: ESBUILD.format,
  target: ESBUILD.target,
  minify: ESBUILD.minify,
  sourcemap: ESBUILD.sourcemap,
  mainFields: ESBUILD.mainFields,
  banner: { js: ESBUILD.banner },
  alias: ESBUILD.alias,
  external: [...external, ...ESBUILD.external],
});

/**
 * What the stack defines in the bundle of `entry` (a module under functions/): its row of the
 * route table when a route's handler is that module (`routeDefine`, lib/bundling.ts), else nothing.
 */
export async function defineFor(entry: string): Promise<Record<string, string>> {
  const { routes } = await import('../../functions/routes.js');
  const handler = relative(resolve(import.meta.dirname, '../../functions'), resolve(entry)).replace(
    /\.ts$/,
    '',
  );
  const row = routes.find((r) => r.handler === handler);
  return row ? routeDefine(row) : {};
}

/** Bundles one function with the CDK stack's own esbuild options (lib/bundling.ts) and its row. */
export async function bundle(
  entry: string,
  outDir: string,
  name: string,
  external: string[] = [],
): Promise<BundleFigure> {
  const figure = await bundleWith(
    entry,
    outDir,
    name,
    functionBuildOptions(external, await defineFor(entry)),
  );
  await buildChunks(outDir, ESBUILD);
  return figure;
}

/**
 * What every function must stay within (the cold-start budget): its bundle size, and its import
 * time as a share of the naive handler's (median of the alternated rounds).
 */
export const BUNDLE_TARGET = { maxKb: 350, importRatio: 0.8 };

/** Every deployed function: one per route-table row, one per scheduled job, one per stream consumer, and the canary. */
export async function functionEntries(
  root: string,
): Promise<{ name: string; entry: string; external: string[] }[]> {
  const { routes } = await import('../../functions/routes.js');
  const { jobs } = await import('../../functions/jobs.js');
  const { streamConsumers } = await import('../../functions/streams.js');
  const entries = [
    ...[...routes, ...jobs, ...streamConsumers].map((r) => ({
      name: r.handler.replace(/\//g, '-'),
      entry: join(root, 'functions', `${r.handler}.ts`),
      external: [] as string[],
    })),
    // `radius` ships beside the canary's bundle, as lib/canary.ts deploys it.
    { name: 'monitoring-canary', entry: join(root, 'functions/monitoring/canary.ts'), external: ['radius'] },
  ].filter((e) => existsSync(e.entry));
  return [...new Map(entries.map((e) => [e.name, e])).values()];
}
