import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalJobs } from '../../bin/local/jobs.js';
import { type CanaryState, getCanaryState } from '../../functions/store/canary.js';
import { createTestTable } from '../support/db.js';
import { useLocalServer } from '../support/http.js';
import { eventually } from '../support/wait.js';

// The local host runs the canary on a timer, as EventBridge does in AWS.
const server = useLocalServer();
const saved = { ...process.env };
// Alerts these runs raise go to a scratch outbox, not the repository's .local.
process.env.OPS_OUTBOX = join(tmpdir(), `ops-outbox-${process.pid}.jsonl`);
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
  vi.useRealTimers();
  for (const k of [
    'LOCAL_CANARY',
    'LOCAL_CANARY_INTERVAL_MS',
    'LOCAL_CANARY_QUIET',
    'CANARY_API_URL',
    'LOCAL_JOBS',
  ]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** Polls the canary's state until `done` holds of it (no deadline of its own: test/support/wait.ts). */
const waitForRun = (done: (state: CanaryState) => boolean = () => true) =>
  eventually(async () => {
    const state = await getCanaryState();
    if (state && done(state)) return state;
    throw new Error(`the canary is not there yet: ${JSON.stringify(state)}`);
  }, 100);

describe('the local canary timer', () => {
  it('runs the canary shortly after start, its API check against the local server', async () => {
    await createTestTable();
    Object.assign(process.env, { LOCAL_CANARY_INTERVAL_MS: '60000', LOCAL_CANARY_QUIET: '1' });
    delete process.env.CANARY_API_URL;
    stop = startLocalJobs({ baseUrl: server.url() });
    const state = await waitForRun();
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
    // A second run after the first: the interval's timer fired.
    const state = await waitForRun((s) => (s.consecutive_fails ?? 0) >= 2);
    expect(state.consecutive_fails).toBeGreaterThanOrEqual(2);
  });

  it('does not run with LOCAL_CANARY=0: no timer is set for it', async () => {
    Object.assign(process.env, {
      LOCAL_JOBS: '0',
      LOCAL_CANARY_INTERVAL_MS: '1000',
      LOCAL_CANARY_QUIET: '1',
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    // Prepare: with the canary on, its first run and its interval are the timers set.
    const on = startLocalJobs({ baseUrl: server.url() });
    expect(vi.getTimerCount()).toBe(2);
    await on();
    vi.clearAllTimers();

    // Act
    process.env.LOCAL_CANARY = '0';
    stop = startLocalJobs({ baseUrl: server.url() });

    // Assess
    expect(vi.getTimerCount()).toBe(0);
  });
});
