import { describe, expect, it } from 'vitest';
import { useLocalServer } from '../support/http.js';
import { runLoad, sharedConflicts } from '../support/load-routers.js';

// `npm run loadtest` in small: the same simulated routers (20 resellers x 10 hotspots) through
// the real local server for a few seconds, the writes counted from the instrumented client.

const server = useLocalServer({ front: true });

describe('npm run loadtest', () => {
  it('reports requests, latencies per route, conflicts and key shares, and no key above 2 % of writes', async () => {
    const r = await runLoad({
      baseUrl: server.url(),
      frontUrl: server.frontUrl(),
      seconds: 6,
      workers: 12,
      resellers: 20,
      hotspots: 10,
      codesPerHotspot: 3,
      // Short sessions, and at least 100 of them whatever the machine's speed: the shares are
      // then about the design, not about how a hash placed a few dozen sessions.
      interims: 1,
      minSessions: 100,
    });
    const text = r.lines.join('\n');
    if (process.env.LOADTEST_PRINT) console.log(text);
    expect(r.failed, text).toBe(0);
    expect(r.lines[0]).toMatch(/^load: 20 resellers x 10 hotspots, 12 requests in flight, \d+ s$/);
    expect(r.lines[1]).toMatch(/^requests: \d+ \(\d+\/s\), failed: 0$/);
    for (const route of ['authorize', 'post-auth', 'accounting'])
      expect(r.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^route POST /api/v1/radius/${route}: \\d+ requests, p50 [\\d.]+ ms, p99 [\\d.]+ ms$`),
        ),
      );
    expect(r.lines).toContainEqual(expect.stringMatching(/^transaction conflicts: \d+/));
    expect(r.lines.at(-1)).toMatch(/^hottest key: (table|gsi\d) \S+ \d+\.\d\d %$/);
    // Starts, interims and stops all went through: the sessions' index written. The open-session
    // counters are the stream consumer's (its own function, not these routes': a Start leaves its
    // session uncounted and an Interim writes its session alone), so none of them is in these
    // shares; an unsharded one never is.
    const keys = r.shares.map((s) => s.key);
    expect(keys.some((k) => k.startsWith('gsi2 SESSIONS#OPEN#'))).toBe(true);
    expect(keys).not.toContain('gsi2 SESSIONS#OPEN');
    expect(keys).not.toContain('table STATS#ALL');
    expect(r.requests).toBeGreaterThan(200);
    expect(r.hottest?.share, text).toBeLessThanOrEqual(0.02);
    expect(sharedConflicts(r), text).toBe(0);
    // It runs until 100 sessions are through, however long the machine takes (no ceiling but the
    // runner's own, generous one).
  }, 300_000);
});
