import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeRegion, killEdgeProcesses, report, startEdgeProcess } from '../test/support/edge.js';

/**
 * `npm run bench -- --only edge-journal`: the in-country edge's journal after a long cut
 * (docs/outage.md, "The journal"), on the bundled service in a process of its own replaying to a
 * local region that takes everything at once (so the figures are the edge's):
 * - a journal of reports as the edge writes them (EDGE_BENCH_REPORTS, default 100,000): its
 *   start (the file counted), its replay rate and the edge's peak memory;
 * - a journal of 1 GiB (EDGE_BENCH_GIB, default 1) of the largest entries the edge keeps (60 KB):
 *   the memory bound's worst case, against the same edge replaying ten such entries.
 * The journal files are removed at the end.
 */
const MIB = 1024 ** 2;
const PAD = 60_000;

interface Replayed {
  entries: number;
  bytes: number;
  startMs: number;
  replayMs: number;
  peakRss: number;
}

function writeJournal(dir: string, entries: number, pad: number): number {
  const fd = openSync(join(dir, 'journal.jsonl'), 'w');
  const padding = pad ? { 'Hotspot-Pad': { type: 'string', value: ['x'.repeat(pad)] } } : {};
  let batch: string[] = [];
  let size = 0;
  for (let i = 0; i < entries; i++) {
    const body = { ...report(`B-${i}`, `CODE${i % 500}`, 1000 + i), ...padding };
    batch.push(`${JSON.stringify({ route: 'accounting', at: Date.now(), body })}\n`);
    size += (batch[batch.length - 1] as string).length;
    if (batch.length >= 2000 || size > 8 * MIB) {
      writeSync(fd, batch.join(''));
      batch = [];
      size = 0;
    }
  }
  writeSync(fd, batch.join(''));
  closeSync(fd);
  return statSync(join(dir, 'journal.jsonl')).size;
}

async function replay(entries: number, pad: number): Promise<Replayed> {
  const region = await fakeRegion('up');
  const dir = mkdtempSync(join(tmpdir(), 'bench-edge-journal-'));
  try {
    const bytes = writeJournal(dir, entries, pad);
    const t0 = performance.now();
    const edge = await startEdgeProcess({ dataDir: dir, regionUrl: region.url });
    const startMs = performance.now() - t0;
    await edge.waitFor(/journal replayed: \d+ entries/);
    const replayMs = performance.now() - t0 - startMs;
    const peakRss = edge.peakRss();
    await edge.stop();
    if (new Set(region.taken).size !== entries)
      throw new Error(`the region took ${region.taken.length} of ${entries}`);
    return { entries, bytes, startMs, replayMs, peakRss };
  } finally {
    killEdgeProcesses();
    await region.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function edgeJournalSection(): Promise<string[]> {
  const reports = Number(process.env.EDGE_BENCH_REPORTS ?? 100_000);
  const gib = Number(process.env.EDGE_BENCH_GIB ?? 1);
  const small = await replay(reports, 0);
  const floor = await replay(10, PAD);
  const big = await replay(Math.ceil((gib * 1024 * MIB) / (PAD + 400)), PAD);
  const row = (name: string, r: Replayed) =>
    `| ${name} | ${r.entries.toLocaleString('en')} | ${(r.bytes / MIB).toFixed(1)} | ${(r.bytes / r.entries).toFixed(0)} | ${(r.startMs / 1000).toFixed(2)} | ${(r.replayMs / 1000).toFixed(1)} | ${((r.entries / r.replayMs) * 1000).toFixed(0)} | ${(r.peakRss / MIB).toFixed(1)} |`;
  return [
    `## The edge's journal (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    'The bundled edge service replaying its journal to a local region that takes everything (bench/edge-journal.ts):',
    'its start (the file counted, a torn tail checked), its replay (8 entries in flight, never two of one code) and',
    "its peak resident memory (VmHWM). The 1 GiB journal is of the largest entries the edge keeps (60 KB): memory's worst case.",
    '',
    '| journal | entries | MiB | bytes an entry | start s | replay s | entries/s | peak RSS MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row('reports as the edge writes them', small),
    row('ten 60 KB entries (the floor)', floor),
    row(`${gib} GiB of 60 KB entries`, big),
    '',
    `Peak memory over the ${gib} GiB replay: ${((big.peakRss - floor.peakRss) / MIB).toFixed(1)} MiB above the ten-entry floor (the bound is 64 MiB).`,
    '',
  ];
}
