// A bounded fan-out: tasks run a few at a time, none started past a deadline, what is left answered.

/**
 * A bounded fan-out: `each` runs over a queue of tasks, at most `concurrency` at a time, and
 * none starts at or after `until` (epoch ms): what is not started is answered as `left`, for a
 * later run. A task may answer follow-up tasks (the next page of the partition it read): they
 * join the end of the queue, so every partition gets its turn before any gets a second one.
 *
 * Used where a backlog is worked inside a deadline (a RADIUS answer, a job's timeout), the way
 * the reconciliation runs its checks (functions/billing/reconcile.ts).
 */
export async function fanOut<T>(
  tasks: readonly T[],
  options: { concurrency: number; until: number },
  each: (task: T) => Promise<readonly T[] | undefined>,
): Promise<{ ran: number; left: T[] }> {
  const queue = [...tasks];
  let ran = 0;
  let running = 0;
  // A worker with nothing queued waits while others run: their follow-ups may come.
  let wake: (() => void) | undefined;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (Date.now() >= options.until) return;
      const task = queue.shift();
      if (task === undefined) {
        if (running === 0) return;
        await new Promise<void>((resolve) => {
          const previous = wake;
          wake = () => {
            previous?.();
            resolve();
          };
        });
        continue;
      }
      running++;
      try {
        const more = await each(task);
        ran++;
        if (more?.length) queue.push(...more);
      } finally {
        running--;
        const w = wake;
        wake = undefined;
        w?.();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return { ran, left: queue };
}
