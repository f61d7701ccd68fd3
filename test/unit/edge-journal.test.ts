import { appendFileSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal, JournalFull } from '../../functions/edge-service/journal.js';

// The edge's journal (docs/outage.md, "The journal"): what the region is owed survives a restart
// and a power cut, in order, and is read back a piece at a time.

const entry = (n: number) => ({ route: 'accounting' as const, at: n, body: { n } });
const dir = () => mkdtempSync(join(tmpdir(), 'edge-journal-'));
const ats = (journal: Journal) => journal.pending().map((e) => e.at);

describe("the edge's journal", () => {
  it('keeps entries across a restart, in order', () => {
    const d = dir();
    const first = new Journal(d);
    for (const n of [1, 2, 3]) first.append(entry(n));
    first.close();
    const again = new Journal(d);
    expect(ats(again)).toEqual([1, 2, 3]);
    expect(again.size).toBe(3);
    expect(again.lastAt).toBe(3);
    again.close();
  });

  it('cuts a torn last line at open and sets it aside, so the next entry is not merged into it', () => {
    const d = dir();
    const first = new Journal(d);
    for (const n of [1, 2, 3]) first.append(entry(n));
    first.close();
    // A power cut in the middle of the fourth write (never acknowledged to the router).
    appendFileSync(join(d, 'journal.jsonl'), '{"route":"accounting","at":4,"bo');
    const lines: string[] = [];
    const again = new Journal(d, (line) => lines.push(line));
    expect(again.size).toBe(3);
    // The report after the restart, acknowledged to its router: read back whole.
    again.append(entry(5));
    again.close();
    const third = new Journal(d);
    expect(ats(third)).toEqual([1, 2, 3, 5]);
    expect(readFileSync(join(d, 'journal.torn'), 'utf8')).toContain('{"route":"accounting","at":4,"bo');
    expect(lines.join('\n')).toMatch(/torn last line of 32 bytes/);
    third.close();
  });

  it('cuts a tail of zeros a power cut left after the last whole line', () => {
    const d = dir();
    const first = new Journal(d);
    first.append(entry(1));
    first.close();
    appendFileSync(join(d, 'journal.jsonl'), Buffer.alloc(200_000));
    const again = new Journal(d);
    again.append(entry(2));
    expect(ats(again)).toEqual([1, 2]);
    again.close();
  });

  it('moves its cursor as the region takes entries, keeps it across a restart, and empties once all are taken', () => {
    const d = dir();
    const journal = new Journal(d);
    for (const n of [1, 2, 3]) journal.append(entry(n));
    const [, second] = [...journal.read()];
    journal.markTaken(second?.end as number, 2);
    expect(ats(journal)).toEqual([3]);
    journal.close();
    const again = new Journal(d);
    expect(again.size).toBe(1);
    expect(ats(again)).toEqual([3]);
    again.markTaken(again.bytes, 1);
    expect(again.size).toBe(0);
    expect(readFileSync(join(d, 'journal.jsonl'), 'utf8')).toBe('');
    again.append(entry(5));
    expect(ats(again)).toEqual([5]);
    again.close();
  });

  it("reads an older edge's cursor (a count of entries) as the offset of the entry after them", () => {
    const d = dir();
    const journal = new Journal(d);
    for (const n of [1, 2, 3]) journal.append(entry(n));
    journal.close();
    writeFileSync(join(d, 'journal.cursor'), '2');
    const again = new Journal(d);
    expect(ats(again)).toEqual([3]);
    expect(again.size).toBe(1);
    again.close();
  });

  it('reads entries appended while it reads, and gives lines that are no entry as raw text', () => {
    const d = dir();
    const journal = new Journal(d);
    journal.append(entry(1));
    appendFileSync(join(d, 'journal.jsonl'), 'not json\n');
    const reopened = new Journal(d);
    const seen: (number | string)[] = [];
    for (const line of reopened.read()) {
      seen.push(line.entry?.at ?? (line.raw as string));
      if (seen.length === 1) reopened.append(entry(3));
    }
    expect(seen).toEqual([1, 'not json', 3]);
    journal.close();
    reopened.close();
  });

  it('refuses an entry over its size limit, and keeps the file whole when the disk refuses a write', () => {
    const d = dir();
    const journal = new Journal(d);
    expect(() => journal.append({ ...entry(1), body: { big: 'x'.repeat(64 * 1024) } })).toThrow(RangeError);
    journal.close();
    // /dev/full answers every write with ENOSPC, as a full disk does.
    const full = dir();
    symlinkSync('/dev/full', join(full, 'journal.jsonl'));
    const onFull = new Journal(full);
    expect(() => onFull.append(entry(1))).toThrow(JournalFull);
    expect(onFull.size).toBe(0);
    onFull.close();
    expect(existsSync(join(full, 'journal.cursor'))).toBe(false);
  });
});
