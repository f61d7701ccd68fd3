import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ESBUILD } from '../lib/bundling.js';

export interface BundleFigure {
  name: string;
  minifiedBytes: number;
  gzipBytes: number;
  file: string;
}

/** Bundles one function with the CDK stack's own esbuild options (lib/bundling.ts). */
export async function bundle(
  entry: string,
  outDir: string,
  name: string,
  external: string[] = [],
): Promise<BundleFigure> {
  mkdirSync(outDir, { recursive: true });
  const file = resolve(outDir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: ESBUILD.format,
    target: ESBUILD.target,
    minify: ESBUILD.minify,
    sourcemap: ESBUILD.sourcemap,
    mainFields: ESBUILD.mainFields,
    banner: { js: ESBUILD.banner },
    alias: ESBUILD.alias,
    external,
    logLevel: 'silent',
  });
  return {
    name,
    minifiedBytes: statSync(file).size,
    gzipBytes: gzipSync(readFileSync(file)).length,
    file,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

function timeNode(args: string[]): number {
  const start = process.hrtime.bigint();
  const out = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (out.status !== 0) throw new Error(`node ${args.join(' ')} failed`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Median time to start node and import the bundle (runs = 9), and the same for `node -e ""`. */
export function importTime(file: string, runs = 9): number {
  const script = `await import(${JSON.stringify(`file://${file}`)})`;
  return median(Array.from({ length: runs }, () => timeNode(['--input-type=module', '-e', script])));
}

export function bareNodeTime(runs = 9): number {
  return median(Array.from({ length: runs }, () => timeNode(['-e', ''])));
}

export const outDirFor = (root: string) => join(root, 'bench', '.out');
