import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../functions/edge-service/journal.js';

// The edge's journal (docs/outage.md): what the region is owed survives a restart, in order.

const entry = (n: number) => ({ route: 'accounting' as const, at: n, body: { n } });

describe("the edge's journal", () => {
  it('keeps entries across a restart, in order, and skips a torn last line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-journal-'));
    const first = new Journal(dir);
    for (const n of [1, 2, 3]) first.append(entry(n));
    first.close();
    // A crash in the middle of the fourth write.
    appendFileSync(join(dir, 'journal.jsonl'), '{"route":"accounting","at":4,"bo');
    const again = new Journal(dir);
    expect(again.pending().map((e) => e.at)).toEqual([1, 2, 3]);
    expect(again.size).toBe(3);
    again.close();
  });

  it('counts what the region took, and empties itself once it took everything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-journal-'));
    const journal = new Journal(dir);
    for (const n of [1, 2, 3]) journal.append(entry(n));
    journal.markTaken(2);
    expect(journal.pending().map((e) => e.at)).toEqual([3]);
    journal.close();
    // The cursor survives a restart: only the third is replayed.
    const again = new Journal(dir);
    expect(again.pending().map((e) => e.at)).toEqual([3]);
    again.markTaken(1);
    expect(again.size).toBe(0);
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8')).toBe('');
    again.append(entry(5));
    expect(again.pending().map((e) => e.at)).toEqual([5]);
    again.close();
  });
});
