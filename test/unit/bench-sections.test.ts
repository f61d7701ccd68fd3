import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_LINE, runLine, writeSections } from '../support/bench-doc.js';

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
    const now = new Date('2026-11-28T21:05:00Z');
    writeSections(
      p.root,
      [
        '## Endpoints through the local server (50 requests, 2 connections)',
        '',
        'new endpoints',
        '',
        '## RADIUS through FreeRADIUS and the local API',
        '',
        'radius figures',
      ],
      now,
    );
    const doc = p.read();
    // Each section dated by the run that wrote it, under its heading.
    expect(doc).toContain(
      `## Endpoints through the local server (50 requests, 2 connections)\n\n${runLine(now)}\n\nnew endpoints\n`,
    );
    expect(doc).toContain(
      `## RADIUS through FreeRADIUS and the local API\n\n${runLine(now)}\n\nradius figures`,
    );
    expect(runLine(now)).toMatch(RUN_LINE);
    expect(runLine(now)).toMatch(/^Run: 2026-11-28 21:05 UTC/);
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
    const now = new Date('2026-11-28T21:05:00Z');
    writeSections(p.root, ['## Console', '', 'new'], now);
    expect(p.read()).toBe(`## Console figures\n\nother\n\n## Console\n\n${runLine(now)}\n\nnew\n\n`);
  });
});
