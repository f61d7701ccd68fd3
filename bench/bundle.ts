/**
 * Bundle sizes and the cold-start proxy: every function bundled as the stack bundles it, then
 * `node` started with it as its entry module, against the naive handler (the DynamoDB document
 * client alone, bundled by plain esbuild) started the same way, runs alternated. Part of
 * `npm run bench`; `npm run bench -- --only import` (or `npx tsx bench/bundle.ts`) runs this part
 * alone (no DynamoDB Local), writes bench/results/bundles.json and this section of docs/bench.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from '../test/support/bench-doc.js';
import {
  BUNDLE_TARGET,
  type BundleFigure,
  bundle,
  bundleWith,
  functionEntries,
} from '../test/support/bundles.js';

/**
 * The naive handler's bundle: plain esbuild (bundle, minified ESM for Node), none of the options
 * or stand-ins of lib/bundling.ts. The one addition is the `require` shim every ESM bundle of
 * CommonJS code needs: without it this bundle stops at its first line (`Dynamic require of
 * "node:https" is not supported`), as plain esbuild resolves the SDK to its CommonJS build.
 */
export function plainBundle(entry: string, outDir: string, name: string): Promise<BundleFigure> {
  return bundleWith(entry, outDir, name, {
    format: 'esm',
    minify: true,
    banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

// Lambda runs Node 22, where the SDK has no "unsupported Node version" warning to print; the
// bench may run an older Node, so the warning is turned off for the timed processes.
const CHILD_ENV = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

const CPU_PRELOAD = fileURLToPath(new URL('./reference/cpu-at-exit.cjs', import.meta.url));

/** One process: its wall-clock time and the CPU time it reported at exit (ms). */
function timeNode(args: string[]): { wall: number; cpu: number } {
  const start = process.hrtime.bigint();
  const out = spawnSync(process.execPath, ['--require', CPU_PRELOAD, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: CHILD_ENV,
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = /bench-cpu-us (\d+)/.exec(out.stderr.toString());
  if (out.status !== 0 || !cpu) throw new Error(`node ${args.join(' ')} failed: ${out.stderr}`);
  return { wall, cpu: Number(cpu[1]) / 1000 };
}

/**
 * Node started with the bundle as its entry module: it loads and evaluates the bundle as an ES
 * module, as Lambda's runtime does with the handler's file. (Until 2026-11-23 the bench ran
 * `node --input-type=module -e "await import(file)"`; that eval path costs 13-20 ms of its own,
 * so an empty module measured 1.2-1.35x `node -e ""` there, against about 1.05x this way.)
 */
const importArgs = (file: string) => [file];

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.round((s.length - 1) * q)] ?? 0;
};

export interface ImportFigure {
  /** Median wall-clock time of the runs importing the bundle. */
  importMs: number;
  /** Median wall-clock time of the reference's runs made beside them. */
  naiveMs: number;
  /** Median of the rounds' wall-clock ratios to the reference; p25 and p75 show the spread. */
  ratio: number;
  ratioP25: number;
  ratioP75: number;
  /** The same from the CPU time each process used (steadier when the machine is shared). */
  cpuRatio: number;
  cpuP25: number;
  cpuP75: number;
}

/**
 * `runs` rounds of two processes, the bundle and the reference (the naive handler), in
 * alternating order. The ratios are the medians of each round's ratios: the two runs of a round
 * share the machine's state of the moment, so a busy neighbour moves both. (The ratio of two
 * medians moved by ±0.2 from one run to the next on this 2-core VM; the median of round ratios
 * by about ±0.05.) Wall-clock time is the figure; the CPU time each process reports is printed
 * beside it because, when other work shares the two cores, it moves far less.
 */
export function importFigure(file: string, reference: string, runs = 21): ImportFigure {
  // `bare`: `node -e ""`, Node starting with nothing to load.
  const refArgs = reference === 'bare' ? ['-e', ''] : importArgs(reference);
  const refs: number[] = [];
  const imported: number[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let i = 0; i < runs; i++) {
    let m: { wall: number; cpu: number };
    let n: { wall: number; cpu: number };
    if (i % 2 === 0) {
      n = timeNode(refArgs);
      m = timeNode(importArgs(file));
    } else {
      m = timeNode(importArgs(file));
      n = timeNode(refArgs);
    }
    refs.push(n.wall);
    imported.push(m.wall);
    ratios.push(m.wall / n.wall);
    cpuRatios.push(m.cpu / n.cpu);
  }
  return {
    importMs: median(imported),
    naiveMs: median(refs),
    ratio: median(ratios),
    ratioP25: quantile(ratios, 0.25),
    ratioP75: quantile(ratios, 0.75),
    cpuRatio: median(cpuRatios),
    cpuP25: quantile(cpuRatios, 0.25),
    cpuP75: quantile(cpuRatios, 0.75),
  };
}

export const outDirFor = (root: string) => join(root, 'bench', '.out');

export interface FunctionFigure extends ImportFigure {
  name: string;
  minifiedBytes: number;
  gzipBytes: number;
}

interface Baseline {
  bare_node_ms?: number;
  bundles?: { name: string; minifiedBytes: number }[];
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
  json: {
    /** `node -e ""` (median of its runs against the naive handler). */
    bare_node_ms: number;
    naive_ms: number;
    bundles: FunctionFigure[];
    references: FunctionFigure[];
  };
  lines: string[];
}> {
  const outDir = outDirFor(root);
  rmSync(outDir, { recursive: true, force: true });
  const reference = (file: string) => join(root, 'bench', 'reference', file);
  const naive = await plainBundle(reference('naive-handler.ts'), outDir, 'reference-naive-handler');
  const figures: FunctionFigure[] = [];
  for (const e of await functionEntries(root)) {
    const { file, ...b } = await bundle(e.entry, outDir, e.name, e.external);
    figures.push({ ...b, ...importFigure(file, naive.file, runs) });
  }
  figures.sort((a, b) => b.minifiedBytes - a.minifiedBytes);
  // Not functions: what Node's module loading and the SDK's DynamoDB client bundled as the
  // functions are (every function but two carries it) cost against the naive handler.
  const references: FunctionFigure[] = [];
  for (const [name, file] of [
    ['empty module', 'empty-module.ts'],
    ['DynamoDB document client alone, bundled as the functions', 'dynamodb-client.ts'],
  ] as const) {
    const { file: out, ...b } = await bundle(reference(file), outDir, name.replace(/\W+/g, '-'));
    references.push({ ...b, name, ...importFigure(out, naive.file, runs) });
  }
  // The naive handler against `node -e ""`: its own time, and the machine's state of the run.
  const { file: naiveFile, ...naiveSize } = naive;
  const naiveFigure: FunctionFigure = {
    ...naiveSize,
    name: 'the naive handler (plain esbuild), against `node -e ""`',
    ...importFigure(naiveFile, 'bare', runs),
  };
  const naiveMs = median([...figures, ...references].map((f) => f.naiveMs));
  const before = new Map((baseline?.bundles ?? []).map((b) => [b.name, b]));
  const ratioText = (f: FunctionFigure) =>
    `${f.ratio.toFixed(2)} | ${f.ratioP25.toFixed(2)}–${f.ratioP75.toFixed(2)} | ${f.cpuRatio.toFixed(2)} | ${f.cpuP25.toFixed(
      2,
    )}–${f.cpuP75.toFixed(2)}`;

  const lines = [
    '## Bundles and cold-start proxy',
    '',
    'Reference: the naive handler (bench/reference/naive-handler.ts: the DynamoDB document client and a ' +
      `trivial handler, bundled by plain esbuild as minified ESM for Node, ${kb(naive.minifiedBytes)} KB), ` +
      `${ms(naiveMs)} ms (median over all rows). Each row: ${runs} rounds of \`node <bundle>.mjs\` and ` +
      "the naive handler, alternated; *vs naive* is the median of the rounds' wall-clock ratios, p25–p75 " +
      'their spread; *CPU* the same from the CPU time each process used.',
    '',
    '| function | minified KB | gzip KB | import ms | vs naive | p25–p75 | vs naive, CPU | p25–p75 | baseline KB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of figures) {
    const b = before.get(f.name);
    lines.push(
      `| ${f.name} | ${kb(f.minifiedBytes)} | ${kb(f.gzipBytes)} | ${ms(f.importMs)} | ${ratioText(f)} | ${
        b ? kb(b.minifiedBytes) : '-'
      } |`,
    );
  }
  for (const f of [...references, naiveFigure]) {
    lines.push(
      `| reference: ${f.name} | ${kb(f.minifiedBytes)} | ${kb(f.gzipBytes)} | ${ms(f.importMs)} | ${ratioText(f)} | - |`,
    );
  }
  const largest = figures[0];
  const byRatio = [...figures].sort((a, b) => b.ratio - a.ratio);
  const worst = byRatio[0];
  const over = figures.filter((f) => f.minifiedBytes > BUNDLE_TARGET.maxKb * 1024);
  const slow = byRatio.filter((f) => f.ratio > BUNDLE_TARGET.importRatio);
  // The offenders, worst first (at most five named).
  const list = (sorted: FunctionFigure[], show: (f: FunctionFigure) => string) => {
    const named = sorted.slice(0, 5).map((f) => `${f.name} ${show(f)}`);
    if (sorted.length > 5) named.push(`${sorted.length - 5} more`);
    return ` (${named.join(', ')})`;
  };
  lines.push(
    '',
    `Largest: ${largest?.name} ${kb(largest?.minifiedBytes ?? 0)} KB (target <= ${BUNDLE_TARGET.maxKb} KB: ${
      over.length
        ? `MISSED by ${over.length} of ${figures.length}${list(
            [...over].sort((a, b) => b.minifiedBytes - a.minifiedBytes),
            (f) => `${kb(f.minifiedBytes)} KB`,
          )}`
        : 'met'
    }). Import time against the naive handler: worst ${worst?.name} ${worst?.ratio.toFixed(2)}, median ${median(
      figures.map((f) => f.ratio),
    ).toFixed(2)} (target <= ${BUNDLE_TARGET.importRatio.toFixed(2)} for every function: ${
      slow.length
        ? `MISSED by ${slow.length} of ${figures.length}${list(slow, (f) => f.ratio.toFixed(2))}`
        : 'met'
    }).`,
  );
  lines.push(
    `Worst by CPU time: ${[...figures].sort((a, b) => b.cpuRatio - a.cpuRatio)[0]?.cpuRatio.toFixed(2)}, median ${median(
      figures.map((f) => f.cpuRatio),
    ).toFixed(2)}. The naive handler took ${naiveFigure.ratio.toFixed(2)}x \`node -e ""\` (${ms(
      naiveFigure.naiveMs,
    )} ms) in this run.`,
    '',
  );
  return {
    json: {
      bare_node_ms: naiveFigure.naiveMs,
      naive_ms: naiveMs,
      bundles: figures,
      references: [...references, naiveFigure],
    },
    lines,
  };
}

export async function importOnly(root: string): Promise<void> {
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
  writeSection(root, lines);
  process.stdout.write(
    `${lines.join('\n')}\nJSON: bench/results/bundles.json; section written to docs/bench.md\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  importOnly(resolve(import.meta.dirname, '..')).catch((error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
