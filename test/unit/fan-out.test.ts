import { afterEach, describe, expect, it, vi } from 'vitest';
import { fanOut } from '../../functions/core/fan-out.js';

/** Lets every other task run until it waits in turn (a macrotask: all pending microtasks run first). */
const yieldToOthers = () => new Promise((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe('the bounded fan-out', () => {
  it('runs every task, never more than its concurrency at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const { ran, left } = await fanOut(
      Array.from({ length: 40 }, (_, i) => i),
      { concurrency: 4, until: Date.now() + 60_000 },
      async (i) => {
        running++;
        most = Math.max(most, running);
        await yieldToOthers();
        running--;
        done.push(i);
        return undefined;
      },
    );
    expect({ ran, left }).toEqual({ ran: 40, left: [] });
    expect(most).toBe(4);
    expect([...done].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it("queues a task's follow-ups behind the others, and waits for them even when the queue ran dry", async () => {
    const order: string[] = [];
    let bDone = (): void => undefined;
    const bFinished = new Promise<void>((r) => {
      bDone = r;
    });
    const { ran } = await fanOut(['a', 'b'], { concurrency: 2, until: Date.now() + 60_000 }, async (t) => {
      order.push(t);
      // `a` asks for more only once `b` is done and its worker found the queue dry: the idle
      // worker must still be there to take them.
      if (t === 'a') {
        await bFinished;
        await yieldToOthers();
      }
      if (t === 'b') bDone();
      return t.length < 3 && t.startsWith('a') ? [`${t}a`, `${t}b`] : undefined;
    });
    expect(order.slice(0, 2)).toEqual(['a', 'b']);
    expect(order.sort()).toEqual(['a', 'aa', 'aaa', 'aab', 'ab', 'aba', 'abb', 'b']);
    expect(ran).toBe(8);
  });

  it('starts nothing past its deadline, and answers what it did not start', async () => {
    // Prepare: a clock of the test's own; each task takes 10 ms of it, the deadline is 25 ms away.
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    const started: number[] = [];

    // Act
    const run = fanOut(
      Array.from({ length: 10 }, (_, i) => i),
      { concurrency: 2, until: Date.now() + 25 },
      async (i) => {
        started.push(i);
        await new Promise((r) => setTimeout(r, 10));
        return undefined;
      },
    );
    await vi.runAllTimersAsync();
    const { ran, left } = await run;

    // Assess: two at 0 ms, two at 10, two at 20; none at 30, past the deadline.
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(ran).toBe(6);
    expect(left).toEqual([6, 7, 8, 9]);
  });
});
