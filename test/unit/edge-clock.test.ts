import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EdgeClock } from '../../functions/edge-service/clock.js';
import { Journal } from '../../functions/edge-service/journal.js';
import { startEdge } from '../../functions/edge-service/service.js';
import { oneCodeReplica, radiusBody, writeEdgeState } from '../support/edge.js';

// Issue 42, item 7: the edge's clock during a cut (functions/edge-service/clock.ts). A mini PC
// without a clock battery, rebooted during a cut, starts with its clock behind: the edge decides
// nothing itself until the clock is set, and a lease lasts its length whatever the wall clock does.

const T = Date.parse('2026-03-14T14:00:00.000Z');
const HOUR = 3600_000;

const replica = () =>
  oneCodeReplica(
    'clock',
    {
      code: 'CLOCKCODE2',
      offer: { duration_hours: 24, data_limit_mb: 0, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
      started_at: new Date(T - 2 * HOUR).toISOString(),
      expires_at: new Date(T + 22 * HOUR).toISOString(),
    },
    new Date(T - HOUR).toISOString(),
  );

/** A data folder as an edge leaves it during a cut: its replica, and a journal whose last entry is at `lastAt`. */
function dataDir(lastAt: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'edge-clock-'));
  writeEdgeState(dir, replica());
  const journal = new Journal(dir);
  journal.append({ route: 'accounting', at: lastAt, body: radiusBody({ 'User-Name': 'CLOCKCODE2' }) });
  journal.close();
  return dir;
}

const clocks = { wall: T, mono: 1000 };
const time = { wall: () => clocks.wall, mono: () => clocks.mono };
const services: Awaited<ReturnType<typeof startEdge>>[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function edge(dir: string, lines: string[] = []) {
  const service = await startEdge({
    // Nothing listens there: the region is cut.
    regionUrl: 'http://127.0.0.1:9',
    token: 'edge-token',
    localSecret: 'local',
    dataDir: dir,
    probeMs: 3_600_000,
    time,
    say: (line) => lines.push(line),
  });
  services.push(service);
  return service;
}

const login = (service: { url: string }, mac: string) =>
  fetch(`${service.url}/api/v1/radius/authorize`, {
    method: 'POST',
    headers: { authorization: 'Bearer local', 'content-type': 'application/json' },
    body: JSON.stringify(
      radiusBody({
        'User-Name': 'CLOCKCODE2',
        'User-Password': 'CLOCKCODE2',
        'NAS-Identifier': 'access_clock',
        'Hotspot-Router-Id': 'rtr_clock',
        'Hotspot-Login-At-Authorize': '1',
        'Calling-Station-Id': mac,
      }),
    ),
  });

describe("the edge's clock", () => {
  it('follows the wall clock forward (a time sync) but not back, and is monotonic in between', () => {
    const c = { wall: T, mono: 0 };
    const clock = new EdgeClock({ wall: () => c.wall, mono: () => c.mono });
    c.mono = 5000;
    expect(clock.now()).toBe(T + 5000);
    c.wall = T - HOUR;
    expect(clock.now()).toBe(T + 5000);
    c.wall = T + HOUR;
    expect(clock.now()).toBe(T + HOUR);
    c.mono = 6000;
    expect(clock.now()).toBe(T + HOUR + 1000);
  });

  it('decides no login after a restart with its clock behind its journal, and decides again once the clock is set', async () => {
    const dir = dataDir(T);
    // Rebooted without a clock battery: the clock reads a day before the journal's last entry.
    clocks.wall = T - 24 * HOUR;
    const lines: string[] = [];
    const service = await edge(dir, lines);
    expect(service.link()).toBe('down');
    const refused = await login(service, '02:00:00:00:07:01');
    expect(refused.status).toBe(401);
    expect(JSON.stringify(await refused.json())).toContain('horloge');
    expect(lines.join('\n')).toMatch(/clock: 86400 s earlier than the latest time seen/);
    // systemd-timesyncd sets the clock.
    clocks.wall = T + 60_000;
    const accepted = await login(service, '02:00:00:00:07:01');
    expect(accepted.status).toBe(200);
    expect(JSON.stringify(await accepted.json())).toContain('Session-Timeout');
  });

  it('keeps a lease for its length when the clock is set back while it runs', async () => {
    clocks.wall = T + HOUR;
    const service = await edge(dataDir(T));
    expect((await login(service, '02:00:00:00:07:02')).status).toBe(200);
    // Someone sets the clock back an hour: the lease of the first device still holds the one place.
    clocks.wall = T;
    clocks.mono += 60_000;
    expect((await login(service, '02:00:00:00:07:03')).status).toBe(401);
    // Eleven minutes later (the lease, 660 s, by the monotonic clock) the place is free.
    clocks.mono += 11 * 60_000;
    expect((await login(service, '02:00:00:00:07:03')).status).toBe(200);
  });
});
