import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalJobs } from '../../bin/local/jobs.js';
import { getCanaryState } from '../../functions/store/canary.js';
import { createTestTable } from '../support/db.js';
import { useLocalServer } from '../support/http.js';

// The local host runs the canary on a timer, as EventBridge does in AWS.
const server = useLocalServer();
const saved = { ...process.env };
// Alerts these runs raise go to a scratch outbox, not the repository's .local.
process.env.OPS_OUTBOX = join(tmpdir(), `ops-outbox-${process.pid}.jsonl`);
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
  for (const k of ['LOCAL_CANARY', 'LOCAL_CANARY_INTERVAL_MS', 'LOCAL_CANARY_QUIET', 'CANARY_API_URL']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

async function waitForRun(timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const state = await getCanaryState();
    if (state) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

describe('the local canary timer', () => {
  it('runs the canary shortly after start, its API check against the local server', async () => {
    await createTestTable();
    Object.assign(process.env, { LOCAL_CANARY_INTERVAL_MS: '60000', LOCAL_CANARY_QUIET: '1' });
    delete process.env.CANARY_API_URL;
    stop = startLocalJobs({ baseUrl: server.url() });
    const state = await waitForRun(8000);
    expect(state).toBeDefined();
    expect(state?.tests.find((t) => t.name === 'api_health')).toMatchObject({ success: true });
    // Nothing else is configured here: those checks fail, honestly, and the run is not healthy.
    expect(state?.tests.find((t) => t.name === 'radius_auth')).toMatchObject({
      success: false,
      error: 'not_configured',
    });
    expect(state?.overall_status).toBe('down');
  });

  it('runs again at every interval', async () => {
    await createTestTable();
    Object.assign(process.env, { LOCAL_CANARY_INTERVAL_MS: '1000', LOCAL_CANARY_QUIET: '1' });
    stop = startLocalJobs({ baseUrl: server.url() });
    await new Promise((r) => setTimeout(r, 3500));
    expect((await getCanaryState())?.consecutive_fails).toBeGreaterThanOrEqual(2);
  });

  it('does not run with LOCAL_CANARY=0', async () => {
    await createTestTable();
    process.env.LOCAL_CANARY = '0';
    stop = startLocalJobs({ baseUrl: server.url() });
    expect(await waitForRun(2000)).toBeUndefined();
  });
});
