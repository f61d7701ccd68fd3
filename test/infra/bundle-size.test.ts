import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUNDLE_TARGET, functionBuildOptions, functionEntries } from '../support/bundles.js';

// Every function's bundle, built as the stack builds it (lib/bundling.ts), within the cold-start
// budget's size: a bundle's size is most of its start-up time (the bench measures that time).

describe('function bundles', () => {
  it(`are each at most ${BUNDLE_TARGET.maxKb} KB, minified as deployed`, async () => {
    const root = resolve(import.meta.dirname, '../..');
    const entries = await functionEntries(root);
    expect(entries.length).toBeGreaterThan(30);
    const built = await build({
      ...functionBuildOptions(['radius']),
      entryPoints: entries.map((e) => ({ in: e.entry, out: e.name })),
      outdir: join(root, 'bench', '.out-sizes'),
      write: false,
      bundle: true,
      platform: 'node',
      logLevel: 'silent',
    });
    const sizes = (built.outputFiles ?? []).map((f) => ({
      name: f.path.replace(/^.*\//, '').replace(/\.js$/, ''),
      kb: Math.round(f.contents.length / 102.4) / 10,
    }));
    expect(sizes).toHaveLength(entries.length);
    expect(sizes.filter((s) => s.kb > BUNDLE_TARGET.maxKb)).toEqual([]);
  }, 120_000);
});
