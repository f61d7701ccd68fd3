import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exists } from '../../functions/store/entity.js';
import { Nas, type NasRecord } from '../../functions/store/nas.js';
import { untilSettled } from '../../functions/store/retry.js';
import { transactIfCurrent } from '../../functions/store/transact.js';
import { useTestTable } from '../support/db.js';

useTestTable();

const nas = (): NasRecord => ({
  nas_id: `nas_${randomUUID().slice(0, 8)}`,
  reseller_id: randomUUID(),
  reseller_name: 'Chez Awa',
  vlan_id: 10,
  kind: 'vlan',
});

describe('a read-then-write against a guard item', () => {
  it('writes while the guard holds, and answers false (nothing written) once it does not', async () => {
    const a = nas();
    const b = nas();
    expect(await transactIfCurrent({ guard: Nas.tx.create(a), other: Nas.tx.create(b) }, 'guard')).toBe(true);
    // The guard exists now: a second create is stale; the other item is not written either.
    const c = nas();
    expect(await transactIfCurrent({ guard: Nas.tx.create(a), other: Nas.tx.create(c) }, 'guard')).toBe(
      false,
    );
    expect(await Nas.get({ nas_id: c.nas_id })).toBeUndefined();
  });

  it('throws when an item that is not the guard fails its condition: that is no stale read', async () => {
    const a = nas();
    const missing = nas();
    await expect(
      transactIfCurrent({ guard: Nas.tx.create(a), other: Nas.tx.check(missing, exists) }, 'guard'),
    ).rejects.toThrow(/other=ConditionalCheckFailed/);
  });

  it('runs a step again while it answers undefined, and gives up with the failure after the attempts', async () => {
    let calls = 0;
    expect(await untilSettled(async () => (++calls < 3 ? undefined : 'stored'), 'busy')).toBe('stored');
    expect(calls).toBe(3);
    calls = 0;
    await expect(untilSettled(async () => void calls++, 'the item kept changing', 4)).rejects.toThrow(
      'the item kept changing',
    );
    expect(calls).toBe(4);
  });
});
