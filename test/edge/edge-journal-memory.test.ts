import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeRegion, fakeRegion, killEdgeProcesses, report, startEdgeProcess } from '../support/edge.js';

// Issue 42, item 1: a big journal (a day's cut of about 50 busy hotspots is over a GiB) starts
// and is replayed whole with bounded memory. The bound (docs/outage.md, "The journal"): the reader
// holds one 64 KiB chunk and one line, the replay at most 8 entries of at most 64 KiB in flight;
// so the edge's peak memory over a replay stays within 64 MiB of its peak over a replay of ten
// entries, whatever the file's size. Entries here are large (60 KB), so that the file is big and
// the replay short: memory per entry is what is bounded, and this is its worst case. 128 MiB
// here (EDGE_JOURNAL_TEST_MIB); `npm run bench -- --only edge-journal` replays 1 GiB.

const SIZE = Number(process.env.EDGE_JOURNAL_TEST_MIB ?? 128) * 1024 ** 2;
const PAD = 60_000;
let region: FakeRegion;
const dirs: string[] = [];

beforeAll(async () => {
  region = await fakeRegion('up');
}, 120_000);
afterAll(async () => {
  killEdgeProcesses();
  await region?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Writes a journal of at least `bytes` of reports (as the edge writes them) into a new folder. */
function journalOf(bytes: number): { dir: string; entries: number } {
  const dir = mkdtempSync(join(tmpdir(), 'edge-1g-'));
  dirs.push(dir);
  const fd = openSync(join(dir, 'journal.jsonl'), 'w');
  const pad = 'x'.repeat(PAD);
  let written = 0;
  let entries = 0;
  let batch: string[] = [];
  let batched = 0;
  while (written < bytes) {
    const body = {
      ...report(`G-${entries}`, `CODE${entries % 50}`, entries),
      'Hotspot-Pad': { type: 'string', value: [pad] },
    };
    const line = `${JSON.stringify({ route: 'accounting', at: Date.now(), body })}\n`;
    batch.push(line);
    batched += line.length;
    written += line.length;
    entries += 1;
    if (batched > 8 * 1024 * 1024) {
      writeSync(fd, batch.join(''));
      batch = [];
      batched = 0;
    }
  }
  writeSync(fd, batch.join(''));
  closeSync(fd);
  return { dir, entries };
}

/** Starts the edge on a journal, waits for its replay to end, and gives its peak memory. */
async function replayed(dir: string, entries: number): Promise<number> {
  region.taken.length = 0;
  const edge = await startEdgeProcess({ dataDir: dir, regionUrl: region.url });
  try {
    await edge.waitFor(new RegExp(`edge listening on .*journal ${entries} entries`));
    await edge.waitFor(/journal replayed: \d+ entries/);
    await edge.waitFor(/link up/);
    expect(new Set(region.taken).size).toBe(entries);
    expect(statSync(join(dir, 'journal.jsonl')).size).toBe(0);
    return edge.peakRss();
  } finally {
    await edge.stop();
  }
}

describe('a journal of hundreds of MiB', () => {
  it('starts, is replayed whole, and the edge stays within 64 MiB of its memory for ten entries', async () => {
    const small = journalOf(10 * (PAD + 1000));
    const floor = await replayed(small.dir, small.entries);
    const big = journalOf(SIZE);
    expect(statSync(join(big.dir, 'journal.jsonl')).size).toBeGreaterThanOrEqual(SIZE);
    const peak = await replayed(big.dir, big.entries);
    process.stdout.write(
      `edge journal replay: ${big.entries} entries, ${(SIZE / 1024 ** 2).toFixed(0)} MiB: peak RSS ${(peak / 1024 ** 2).toFixed(1)} MiB; ten entries: ${(floor / 1024 ** 2).toFixed(1)} MiB\n`,
    );
    expect(peak - floor).toBeLessThan(64 * 1024 ** 2);
  }, 600_000);
});
