import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  edgeBundle,
  type FakeRegion,
  fakeRegion,
  killEdgeProcesses,
  mountNamespace,
  oneCodeReplica,
  radiusBody,
  report,
  startEdgeProcess,
  writeEdgeState,
} from '../support/edge.js';

// Issue 42, item 1: the edge's journal against the faults of a reseller's back room, on the
// bundled service in a process of its own: a power cut (SIGKILL, then a torn last line, as a cut
// in the middle of a write leaves it) and a full disk (a small file system of its own).

let region: FakeRegion;
beforeAll(async () => {
  await edgeBundle();
  region = await fakeRegion('cut');
}, 120_000);
afterAll(async () => {
  killEdgeProcesses();
  await region?.close();
});

/** Resolves once `n` of the reports sent have been acknowledged. */
function counter(n: number) {
  const acknowledged: string[] = [];
  let reached: () => void = () => undefined;
  const enough = new Promise<void>((r) => {
    reached = r;
  });
  return {
    acknowledged,
    enough,
    add: (line: string) => {
      acknowledged.push(line);
      if (acknowledged.length >= n) reached();
    },
  };
}

describe('a power cut during a cut of the link', () => {
  it('keeps every report it acknowledged through SIGKILL and a torn last line, then replays them all and answers again', async () => {
    region.setMode('cut');
    const dataDir = mkdtempSync(join(tmpdir(), 'edge-faults-'));
    const first = await startEdgeProcess({ dataDir, regionUrl: region.url });
    // Reports of 60 sessions at once; the power goes while some are still being written.
    const seen = counter(20);
    const sends = Array.from({ length: 60 }, (_, i) =>
      first.call('accounting', report(`P-${i}`, `CODE${i % 6}`, 1000 + i)).then(
        (res) => (res.status === 204 ? seen.add(`P-${i} ${1000 + i}`) : undefined),
        () => undefined,
      ),
    );
    await seen.enough;
    first.child.kill('SIGKILL');
    await Promise.all(sends);
    const before = [...seen.acknowledged];
    // The power cut tears the write in progress: half a line at the end of the journal.
    appendFileSync(join(dataDir, 'journal.jsonl'), '{"route":"accounting","at":17,"body":{"User-Na');

    const second = await startEdgeProcess({ dataDir, regionUrl: region.url });
    await second.waitFor(/torn last line of \d+ bytes/);
    // Reports after the restart, still during the cut: acknowledged, journaled after the torn line.
    for (let i = 0; i < 10; i++) {
      const res = await second.call('accounting', report(`Q-${i}`, `CODE${i % 3}`, 2000 + i));
      expect(res.status).toBe(204);
      before.push(`Q-${i} ${2000 + i}`);
    }
    // The link comes back: the journal is replayed to its end, and the edge answers again.
    region.setMode('up');
    await second.waitFor(/journal replayed: \d+ entries/);
    await second.waitFor(/link up/);
    expect(before.filter((r) => !region.taken.includes(r))).toEqual([]);
    const after = await second.call('accounting', report('R-1', 'CODE1', 3000));
    expect(after.status).toBe(204);
    expect(region.taken).toContain('R-1 3000');
    expect(readFileSync(join(dataDir, 'journal.torn'), 'utf8')).toContain('"at":17,"body":{"User-Na');
    await second.stop();
  }, 90_000);
});

describe('a full disk during a cut', () => {
  it('stops acknowledging accounting (routers resend it), still lets codes in, and says so when the link returns', async () => {
    region.setMode('refuse');
    // The edge's data on a file system of 64 KiB: a mount of its own in a namespace of its own
    // (root, or an unprivileged user namespace); where neither is allowed, a file size limit.
    const seed = mkdtempSync(join(tmpdir(), 'edge-full-seed-'));
    writeEdgeState(seed, oneCodeReplica('edge', { code: 'FULLDISK23' }));
    const dataDir = mkdtempSync(join(tmpdir(), 'edge-full-'));
    const ns = mountNamespace();
    const wrap = ns
      ? [
          ...ns,
          'sh',
          '-c',
          `mount -t tmpfs -o size=64k,mode=700 tmpfs '${dataDir}' && cp '${seed}/state.json' '${dataDir}/' && exec "$@"`,
          'sh',
        ]
      : ['prlimit', '--fsize=48000', '--'];
    if (!ns) writeFileSync(join(dataDir, 'state.json'), readFileSync(join(seed, 'state.json')));
    const edge = await startEdgeProcess({
      dataDir,
      regionUrl: region.url,
      env: { EDGE_DOWN_AFTER: '1' },
      wrap,
    });
    try {
      const acknowledged: string[] = [];
      let refused = 0;
      for (let i = 0; i < 400 && refused < 3; i++) {
        const res = await edge.call('accounting', report(`F-${i}`, 'FULLDISK23', 5000 + i));
        if (res.status === 204) acknowledged.push(`F-${i} ${5000 + i}`);
        else {
          expect(res.status).toBe(503);
          refused += 1;
        }
      }
      expect(refused).toBe(3);
      expect(acknowledged.length).toBeGreaterThan(10);
      await edge.waitFor(/journal: disk full/);
      // A voucher from the replica still gets in, answered from memory.
      const login = await edge.call(
        'authorize',
        radiusBody({
          'User-Name': 'FULLDISK23',
          'User-Password': 'FULLDISK23',
          'NAS-Identifier': 'access_edge',
          'Hotspot-Router-Id': 'rtr_edge',
          'Hotspot-Login-At-Authorize': '1',
          'Calling-Station-Id': '02:00:00:00:0f:01',
        }),
      );
      expect(login.status).toBe(200);
      expect(JSON.stringify(await login.json())).toContain('Session-Timeout');
      // The link returns: the journal is replayed and emptied, the disk has room again.
      region.setMode('up');
      await edge.waitFor(/journal replayed/);
      expect(
        await edge.waitFor(
          /while the link was down: 3 reports not acknowledged \(disk full.*1 logins answered but not journaled/,
        ),
      ).toBeTruthy();
      expect(acknowledged.filter((r) => !region.taken.includes(r))).toEqual([]);
      const again = await edge.call('accounting', report('F-again', 'FULLDISK23', 9000));
      expect(again.status).toBe(204);
    } finally {
      await edge.stop();
    }
  }, 90_000);
});
