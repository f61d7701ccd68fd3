/**
 * docs/bench.md is written by the bench section by section: each run replaces the sections it
 * measured and leaves the others as their last run wrote them, each dated by the run that wrote
 * it (a `Run:` line under its heading): the only dated runs in the docs (test/unit/docs-facts.test.ts).
 * Shared by the bench (bench/run.ts, bench/bundle.ts, bench/loadtest.ts) and its test
 * (test/unit/bench-sections.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

/** The line that dates a section: when its run wrote it, and how busy the machine was. */
export const runLine = (now = new Date()): string =>
  `Run: ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC (load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${cpus().length} cores).`;

/** How a `Run:` line reads, for whoever checks that a section has one: a date, and the machine's state. */
export const RUN_LINE = /^Run: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \([^)]+\)\.$/;

/**
 * Replaces the docs/bench.md section whose heading is `lines[0]` (up to the next `## `), dated
 * (`runLine`) under its heading. A heading is matched up to its first parenthesis, so a run with
 * other settings ("300 requests") replaces the section of the last; a section the page lacks goes
 * in before the prose that reads the figures ("## What the figures say").
 */
export function writeSection(root: string, lines: string[], now = new Date()): void {
  const file = join(root, 'docs', 'bench.md');
  const doc = readFileSync(file, 'utf8');
  const heading = (lines[0] as string).split(' (')[0] as string;
  const at = doc.search(new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(|$)`, 'm'));
  const body = lines.slice(1);
  while (body[0] === '') body.shift();
  const text = `${[lines[0], '', runLine(now), '', ...body].join('\n').trimEnd()}\n\n`;
  if (at < 0) {
    const prose = doc.indexOf('\n## What the figures say');
    const cut = prose < 0 ? doc.length : prose + 1;
    writeFileSync(file, `${doc.slice(0, cut)}${text}${doc.slice(cut)}`);
    return;
  }
  const next = doc.indexOf('\n## ', at + 1);
  const end = next < 0 ? doc.length : next + 1;
  writeFileSync(file, `${doc.slice(0, at)}${text}${doc.slice(end)}`);
}

/** Writes each `## ` section of `lines` into docs/bench.md (`writeSection`), dated alike. */
export function writeSections(root: string, lines: string[], now = new Date()): void {
  let section: string[] = [];
  const flush = () => {
    if (section.length) writeSection(root, section, now);
    section = [];
  };
  for (const line of lines) {
    if (line.startsWith('## ')) flush();
    if (section.length || line.startsWith('## ')) section.push(line);
  }
  flush();
}
