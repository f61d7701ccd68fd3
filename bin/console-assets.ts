// `npm run console`: the operators' console built with esbuild into functions/console/assets.generated.ts.

/**
 * `npm run console`: builds the operators' console (console/, Preact) with esbuild, minified,
 * into content-hashed files written to functions/console/assets.generated.ts, as
 * bin/portal-assets.ts does for the captive portal: the console's Lambdas carry them in their
 * bundle and the local server serves the same module. The chart (uPlot) is a chunk of its own,
 * loaded when a screen first draws one, so that the login page does not carry it. A test fails
 * while the committed module is stale.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Asset, assetsModule, CSS, JS, root, TARGET } from './assets-module.js';

export const CONSOLE_GENERATED = root('functions/console/assets.generated.ts');

async function bundle(): Promise<{ assets: Asset[]; preloads: string[] }> {
  const out = await build({
    entryPoints: { console: root('console/main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    write: false,
    outdir: root('.console-build'),
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    target: TARGET,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    charset: 'utf8',
    metafile: true,
    logLevel: 'silent',
  });
  // The entry's static imports (the shared chunks every screen needs), not the screens' own chunks.
  // Every lazily imported module is an entry point of the metafile too: the console's is main.tsx.
  const entry = Object.values(out.metafile.outputs).find((o) => o.entryPoint?.endsWith('console/main.tsx'));
  const preloads = (entry?.imports ?? [])
    .filter((i) => i.kind === 'import-statement')
    .map((i) => basename(i.path));
  const css = await build({
    entryPoints: [root('console/console.css')],
    bundle: true,
    minify: true,
    write: false,
    target: TARGET,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const cssText = css.outputFiles[0]?.text ?? '';
  const cssName = `console-${createHash('sha256').update(cssText).digest('base64url').slice(0, 10)}.css`;
  const assets = [
    ...out.outputFiles.map((f) => ({ name: basename(f.path), type: JS, text: f.text })),
    { name: cssName, type: CSS, text: cssText },
  ];
  return { assets, preloads: preloads.sort() };
}

/** The text of functions/console/assets.generated.ts for the current sources. */
export async function consoleAssetsModule(): Promise<string> {
  const built = await bundle();
  const assets = built.assets.sort((a, b) => a.name.localeCompare(b.name));
  const script = assets.find((a) => /^console-.*\.js$/.test(a.name))?.name;
  const style = assets.find((a) => a.name.endsWith('.css'))?.name;
  if (!script || !style) throw new Error('the console build gave no script or stylesheet');
  return assetsModule({
    command: 'npm run console',
    sources: 'console/',
    prefix: 'CONSOLE',
    script,
    style,
    assets,
    preloads: built.preloads,
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await consoleAssetsModule();
  writeFileSync(CONSOLE_GENERATED, text);
  process.stdout.write(`functions/console/assets.generated.ts: ${text.length} characters\n`);
}
