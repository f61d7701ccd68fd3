import { describe, expect, it } from 'vitest';
import { sharedPromise } from '../../functions/core/shared-promise.js';

describe('sharedPromise', () => {
  it('loads a key once for every caller, and again after a failure', async () => {
    const cache = new Map<string, Promise<number>>();
    let loads = 0;
    let fail = true;
    const load = async () => {
      loads++;
      if (fail) throw new Error('not yet');
      return loads;
    };
    const [a, b] = await Promise.allSettled([
      sharedPromise(cache, 'k', load),
      sharedPromise(cache, 'k', load),
    ]);
    expect([a.status, b.status, loads]).toEqual(['rejected', 'rejected', 1]);
    // The failure is not kept: the next call loads again, and that value is shared.
    await Promise.resolve();
    fail = false;
    const values = await Promise.all([1, 2, 3].map(() => sharedPromise(cache, 'k', load)));
    expect(values).toEqual([2, 2, 2]);
    expect(loads).toBe(2);
    // Another key has a load of its own.
    await expect(sharedPromise(cache, 'other', load)).resolves.toBe(3);
  });
});
