/**
 * Waiting for an event in a test: `eventually` polls a check until it holds, with no deadline of
 * its own. How soon a busy machine gets there is no test's business (timings are the bench's),
 * so the one bound is the test's own timeout (vitest.config.ts), a guard against a hung run: a
 * poll still waiting when its test ends stops, and its last failure is printed beside the
 * timeout (`stopWaiting`, run after each test by test/support/setup.ts).
 */

interface Poll {
  /** What the check last said: the error it threw, or that it answered false. */
  last: unknown;
  stopped: boolean;
}

const polls = new Set<Poll>();

const told = (last: unknown) =>
  last instanceof Error ? last.message : last === undefined ? 'no check ran' : String(last);

/**
 * Runs `check` every `intervalMs` until it answers something other than `false` without
 * throwing, and returns that answer: a count a stream consumer keeps, a session the relay
 * closed, a server's output.
 */
export async function eventually<T>(check: () => Promise<T> | T, intervalMs = 50): Promise<T> {
  const poll: Poll = { last: undefined, stopped: false };
  polls.add(poll);
  try {
    for (;;) {
      try {
        const result = await check();
        if (result !== false) return result;
        poll.last = 'the check answered false';
      } catch (error) {
        poll.last = error;
      }
      if (poll.stopped) throw new Error(`the test ended while waiting; last check: ${told(poll.last)}`);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  } finally {
    polls.delete(poll);
  }
}

/** Stops the polls still running when a test ends (it timed out), printing what each last saw. */
export function stopWaiting(): void {
  for (const poll of polls) {
    poll.stopped = true;
    process.stderr.write(`still waiting when the test ended; last check: ${told(poll.last)}\n`);
  }
}
