import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { routeDefine } from '../../lib/bundling.js';
import { BUNDLE_TARGET, defineFor, functionBuildOptions, functionEntries } from '../support/bundles.js';

// Every function's bundle, built as the stack builds it (lib/bundling.ts), within the cold-start
// budget's size: a bundle's size is most of its start-up time (the bench measures that time).

describe('function bundles', () => {
  it(`are each at most ${BUNDLE_TARGET.maxKb} KB, minified as deployed`, async () => {
    const root = resolve(import.meta.dirname, '../..');
    const entries = await functionEntries(root);
    expect(entries.length).toBeGreaterThan(30);
    // One build for all: a route's deployed bundle carries its own row of the route table
    // (`routeDefine`), here every bundle carries the longest row, so that a size is at most a few
    // hundred bytes over the deployed one, never under it.
    const { routes } = await import('../../functions/routes.js');
    const longest = routes.reduce((a, b) => (JSON.stringify(b).length > JSON.stringify(a).length ? b : a));
    const built = await build({
      ...functionBuildOptions(['radius'], routeDefine(longest)),
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

describe("a route's bundle", () => {
  it('carries its own row of the route table, not the table', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const entry = join(root, 'functions/billing/forfaits-list.ts');
    const { routes } = await import('../../functions/routes.js');
    const built = await build({
      ...functionBuildOptions([], await defineFor(entry)),
      entryPoints: [entry],
      outfile: join(root, 'bench', '.out-sizes', 'row.mjs'),
      write: false,
      bundle: true,
      platform: 'node',
      logLevel: 'silent',
    });
    const text = built.outputFiles[0]?.text ?? '';
    const own = routes.find((r) => r.handler === 'billing/forfaits-list');
    expect(own).toBeDefined();
    expect(text.includes(`"path":"${own?.path}","handler":"${own?.handler}"`)).toBe(true);
    expect(routes.filter((r) => r !== own && text.includes(r.summary))).toEqual([]);
  }, 120_000);
});
