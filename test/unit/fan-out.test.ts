import { describe, expect, it } from 'vitest';
import { fanOut } from '../../functions/core/fan-out.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
        await sleep(2);
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
    const { ran } = await fanOut(['a', 'b'], { concurrency: 2, until: Date.now() + 60_000 }, async (t) => {
      order.push(t);
      // `a` is slow and then asks for more: the idle worker must still be there to take them.
      if (t === 'a') await sleep(20);
      return t.length < 3 && t.startsWith('a') ? [`${t}a`, `${t}b`] : undefined;
    });
    expect(order.slice(0, 2)).toEqual(['a', 'b']);
    expect(order.sort()).toEqual(['a', 'aa', 'aaa', 'aab', 'ab', 'aba', 'abb', 'b']);
    expect(ran).toBe(8);
  });

  it('starts nothing past its deadline, and answers what it did not start', async () => {
    const started: number[] = [];
    const { ran, left } = await fanOut(
      Array.from({ length: 10 }, (_, i) => i),
      { concurrency: 2, until: Date.now() + 25 },
      async (i) => {
        started.push(i);
        await sleep(10);
        return undefined;
      },
    );
    expect(ran).toBe(started.length);
    expect(ran).toBeGreaterThan(0);
    expect(ran).toBeLessThan(10);
    expect([...started, ...left].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });
});
