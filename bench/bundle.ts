/**
 * Bundle sizes and the cold-start proxy: every function bundled as the stack bundles it, then
 * `node` started to import it, against `node -e ""` started the same way. Part of `npm run bench`;
 * `npx tsx bench/bundle.ts` runs this part alone (no DynamoDB Local) and writes
 * bench/results/bundles.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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

// Lambda runs Node 22, where the SDK has no "unsupported Node version" warning to print; the
// bench may run an older Node, so the warning is turned off for the timed processes.
const CHILD_ENV = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

function timeNode(args: string[]): number {
  const start = process.hrtime.bigint();
  const out = spawnSync(process.execPath, args, { stdio: 'ignore', env: CHILD_ENV });
  if (out.status !== 0) throw new Error(`node ${args.join(' ')} failed`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Node started with the bundle as its entry module: it loads and evaluates the bundle as an ES
 * module, as Lambda's runtime does with the handler's file. (Until 2026-11-23 the bench ran
 * `node --input-type=module -e "await import(file)"`; that eval path costs 13-20 ms of its own,
 * so an empty module measured 1.2-1.35x `node -e ""` there, against about 1.05x this way.)
 */
const importArgs = (file: string) => [file];

/** Median time to start node and import the bundle. */
export function importTime(file: string, runs = 15): number {
  return median(Array.from({ length: runs }, () => timeNode(importArgs(file))));
}

export function bareNodeTime(runs = 15): number {
  return median(Array.from({ length: runs }, () => timeNode(['-e', ''])));
}

export interface ImportFigure {
  /** Median of the runs importing the bundle. */
  importMs: number;
  /** Median of the `node -e ""` runs made between them. */
  bareMs: number;
  ratio: number;
}

/**
 * `runs` imports of the bundle, each right after a `node -e ""`. The ratio is the median of the
 * ratios of each pair: the two runs of a pair share the machine's state of the moment, so a busy
 * neighbour moves both. (The ratio of the two medians, used until 2026-11-23, moved by ±0.2
 * from one run to the next on this 2-core VM; the median of pair ratios by about ±0.05.)
 */
export function importFigure(file: string, runs = 15): ImportFigure {
  const bare: number[] = [];
  const imported: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    const b = timeNode(['-e', '']);
    const m = timeNode(importArgs(file));
    bare.push(b);
    imported.push(m);
    ratios.push(m / b);
  }
  return { importMs: median(imported), bareMs: median(bare), ratio: median(ratios) };
}

export const outDirFor = (root: string) => join(root, 'bench', '.out');

/** What every function must stay within (the cold-start budget). */
export const BUNDLE_TARGET = { maxKb: 350, importRatio: 1.6 };

export interface FunctionFigure {
  name: string;
  minifiedBytes: number;
  gzipBytes: number;
  importMs: number;
  bareMs: number;
  ratio: number;
}

/** Every deployed function: one per route-table row, and the canary. */
export async function functionEntries(
  root: string,
): Promise<{ name: string; entry: string; external: string[] }[]> {
  const { routes } = await import('../functions/routes.js');
  const entries = [
    ...routes.map((r) => ({
      name: r.handler.replace(/\//g, '-'),
      entry: join(root, 'functions', `${r.handler}.ts`),
      external: [] as string[],
    })),
    // `radius` ships beside the canary's bundle, as lib/canary.ts deploys it.
    { name: 'monitoring-canary', entry: join(root, 'functions/monitoring/canary.ts'), external: ['radius'] },
  ].filter((e) => existsSync(e.entry));
  return [...new Map(entries.map((e) => [e.name, e])).values()];
}

interface Baseline {
  bare_node_ms?: number;
  bundles?: { name: string; minifiedBytes: number; ratio: number }[];
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (v: number) => v.toFixed(2);

/**
 * Bundles and times every function. Returns the JSON figures and the markdown section, with
 * the figures of `baseline` (docs/bench-baseline.json) beside them when given.
 */
export async function bundleSection(
  root: string,
  baseline?: Baseline,
  runs = Number(process.env.BENCH_IMPORT_RUNS ?? 21),
): Promise<{
  json: { bare_node_ms: number; bundles: FunctionFigure[]; references: FunctionFigure[] };
  lines: string[];
}> {
  const outDir = outDirFor(root);
  rmSync(outDir, { recursive: true, force: true });
  const figures: FunctionFigure[] = [];
  for (const e of await functionEntries(root)) {
    const { file, ...b } = await bundle(e.entry, outDir, e.name, e.external);
    figures.push({ ...b, ...importFigure(file, runs) });
  }
  figures.sort((a, b) => b.minifiedBytes - a.minifiedBytes);
  const bare = median(figures.map((f) => f.bareMs));
  const before = new Map((baseline?.bundles ?? []).map((b) => [b.name, b]));

  const lines = [
    '## Bundles and cold-start proxy',
    '',
    `\`node -e ""\`: ${ms(bare)} ms (median of ${runs} per function, each run right before one import of ` +
      'that function, `node <bundle>.mjs`; the ratio is the median of the ratios of those pairs)',
    '',
    '| function | minified KB | gzip KB | import ms | ratio | baseline KB | baseline ratio |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of figures) {
    const b = before.get(f.name);
    lines.push(
      `| ${f.name} | ${kb(f.minifiedBytes)} | ${kb(f.gzipBytes)} | ${ms(f.importMs)} | ${f.ratio.toFixed(2)} | ${
        b ? kb(b.minifiedBytes) : '-'
      } | ${b ? b.ratio.toFixed(2) : '-'} |`,
    );
  }
  // Not functions: what Node's module loading and the SDK's DynamoDB client cost on their own.
  const references: FunctionFigure[] = [];
  for (const [name, file] of [
    ['reference: empty module', 'empty-module.ts'],
    ['reference: DynamoDB document client alone', 'dynamodb-client.ts'],
  ] as const) {
    const { file: out, ...b } = await bundle(
      join(root, 'bench', 'reference', file),
      outDir,
      name.replace(/\W+/g, '-'),
    );
    references.push({ ...b, name, ...importFigure(out, runs) });
  }
  for (const f of references) {
    lines.push(
      `| ${f.name} | ${kb(f.minifiedBytes)} | ${kb(f.gzipBytes)} | ${ms(f.importMs)} | ${f.ratio.toFixed(2)} | - | - |`,
    );
  }
  const largest = figures[0];
  const worst = figures.reduce<FunctionFigure | undefined>(
    (w, f) => (!w || f.ratio > w.ratio ? f : w),
    undefined,
  );
  const over = figures.filter((f) => f.minifiedBytes > BUNDLE_TARGET.maxKb * 1024);
  const slow = figures.filter((f) => f.ratio > BUNDLE_TARGET.importRatio);
  // The offenders, worst first (at most five named).
  const list = (
    fs: FunctionFigure[],
    by: (f: FunctionFigure) => number,
    show: (f: FunctionFigure) => string,
  ) => {
    const sorted = [...fs].sort((a, b) => by(b) - by(a));
    const named = sorted.slice(0, 5).map((f) => `${f.name} ${show(f)}`);
    if (sorted.length > 5) named.push(`${sorted.length - 5} more`);
    return ` (${named.join(', ')})`;
  };
  lines.push(
    '',
    `Largest: ${largest?.name} ${kb(largest?.minifiedBytes ?? 0)} KB (target <= ${BUNDLE_TARGET.maxKb} KB: ${
      over.length
        ? `MISSED by ${over.length} of ${figures.length}${list(
            over,
            (f) => f.minifiedBytes,
            (f) => `${kb(f.minifiedBytes)} KB`,
          )}`
        : 'met'
    }); worst import ratio ${worst?.name} ${worst?.ratio.toFixed(2)} (target <= ${BUNDLE_TARGET.importRatio}: ${
      slow.length
        ? `MISSED by ${slow.length} of ${figures.length}${list(
            slow,
            (f) => f.ratio,
            (f) => f.ratio.toFixed(2),
          )}`
        : 'met'
    })`,
  );
  if (baseline?.bare_node_ms) {
    lines.push(`Baseline \`node -e ""\`: ${ms(baseline.bare_node_ms)} ms.`);
  }
  lines.push('');
  return { json: { bare_node_ms: bare, bundles: figures, references }, lines };
}

async function main(): Promise<void> {
  const root = resolve(import.meta.dirname, '..');
  const baselineFile = join(root, 'docs', 'bench-baseline.json');
  const baseline = existsSync(baselineFile)
    ? (JSON.parse(readFileSync(baselineFile, 'utf8')) as Baseline)
    : undefined;
  const { json, lines } = await bundleSection(root, baseline);
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(root, 'bench', 'results', 'bundles.json'),
    `${JSON.stringify({ measured_at: new Date().toISOString(), node: process.version, ...json }, null, 2)}\n`,
  );
  process.stdout.write(`${lines.join('\n')}\nJSON: bench/results/bundles.json\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
