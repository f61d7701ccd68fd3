import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSections } from '../support/bench-doc.js';

/** A docs/bench.md in a folder of its own, as the bench finds it. */
function page(text: string): { root: string; read: () => string } {
  const root = mkdtempSync(join(tmpdir(), 'bench-page-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'bench.md'), text);
  roots.push(root);
  return { root, read: () => readFileSync(join(root, 'docs', 'bench.md'), 'utf8') };
}
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('docs/bench.md written by the full run', () => {
  it('replaces each measured section, matching a heading up to its settings', () => {
    const p = page(
      [
        '# Benchmark figures',
        '',
        '## Endpoints through the local server (300 requests, 8 connections)',
        '',
        'old endpoints',
        '',
        '## Bundles and cold-start proxy',
        '',
        'bundles kept',
        '',
        '## What the figures say, and the targets missed',
        '',
        'prose kept',
        '',
      ].join('\n'),
    );
    writeSections(p.root, [
      '## Endpoints through the local server (50 requests, 2 connections)',
      '',
      'new endpoints',
      '',
      '## RADIUS through FreeRADIUS and the local API',
      '',
      'radius figures',
    ]);
    const doc = p.read();
    expect(doc).toContain(
      '## Endpoints through the local server (50 requests, 2 connections)\n\nnew endpoints\n',
    );
    expect(doc).not.toContain('old endpoints');
    expect(doc).not.toContain('300 requests');
    expect(doc).toContain('bundles kept');
    // A section the page did not have goes in before the prose, which stays last.
    expect(doc.indexOf('radius figures')).toBeGreaterThan(doc.indexOf('bundles kept'));
    expect(doc.indexOf('radius figures')).toBeLessThan(doc.indexOf('## What the figures say'));
    expect(doc.trimEnd().endsWith('prose kept')).toBe(true);
  });

  it('does not take a heading for another that merely starts like it', () => {
    const p = page('## Console figures\n\nother\n\n## Console\n\nold\n');
    writeSections(p.root, ['## Console', '', 'new']);
    expect(p.read()).toBe('## Console figures\n\nother\n\n## Console\n\nnew\n\n');
  });
});
