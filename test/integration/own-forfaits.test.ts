import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createOwnForfait,
  ForfaitEntity,
  getForfait,
  listForfaitsOnSale,
  listOwnForfaits,
  updateOwnForfait,
} from '../../functions/store/forfaits.js';
import { useTestTable } from '../support/db.js';

useTestTable();

/** The rates of `offer`, as a caller read them. */
const RATES = { cir_kbps: 256, mir_kbps: 1024 };
const offer = (name: string) => ({
  id: randomUUID(),
  name,
  price_fcfa: 200,
  duration_hours: 3,
  data_limit_mb: 0,
  cir_kbps: 256,
  mir_kbps: 1024,
});

describe("a reseller's own forfaits in DynamoDB", () => {
  it('parallel creations never pass the cap, and each takes its own place in the list', async () => {
    const resellerId = randomUUID();
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createOwnForfait(resellerId, offer(`Pass ${i}`), 5)),
    );
    const made = outcomes.filter((o) => o !== undefined);
    expect(made).toHaveLength(5);
    expect(new Set(made.map((f) => f.position)).size).toBe(5);
    const listed = await listOwnForfaits(resellerId);
    expect(listed.map((f) => f.position)).toEqual([1, 2, 3, 4, 5]);
    // Never in the platform's list (its sparse index).
    const onSale = new Set((await listForfaitsOnSale()).map((f) => f.id));
    expect(listed.some((f) => onSale.has(f.id))).toBe(false);
  });

  it("an update is conditioned on its owner: another reseller's, or the platform's, is refused at write time", async () => {
    const owner = randomUUID();
    const made = await createOwnForfait(owner, offer('Pass A'), 10);
    if (!made) throw new Error('not made');
    expect(await updateOwnForfait(randomUUID(), made.id, { price_fcfa: 1 }, RATES)).toBeUndefined();
    expect((await getForfait(made.id))?.price_fcfa).toBe(200);
    // A platform forfait (no owner) is never changed through this path.
    const platform = offer('Pass plateforme');
    await ForfaitEntity.put({ ...platform, status: 'active', created_at: 'x', updated_at: 'x' });
    expect(await updateOwnForfait(owner, platform.id, { price_fcfa: 1 }, RATES)).toBeUndefined();
    expect((await getForfait(platform.id))?.price_fcfa).toBe(200);

    // Moving it rewrites its place in the reseller's index.
    const second = await createOwnForfait(owner, offer('Pass B'), 10);
    await updateOwnForfait(owner, second?.id as string, { position: 0 }, RATES);
    expect((await listOwnForfaits(owner)).map((f) => f.name)).toEqual(['Pass B', 'Pass A']);
  });

  it('an update is conditioned on the rates its whole forfait was checked against: rates changed meanwhile, it is refused', async () => {
    const owner = randomUUID();
    const made = await createOwnForfait(owner, offer('Pass C'), 10);
    if (!made) throw new Error('not made');
    // Another update lowered the maximum since the caller read 256/1024.
    expect(await updateOwnForfait(owner, made.id, { mir_kbps: 512 }, RATES)).toMatchObject({ mir_kbps: 512 });
    expect(await updateOwnForfait(owner, made.id, { cir_kbps: 1000 }, RATES)).toBeUndefined();
    expect((await getForfait(made.id))?.cir_kbps).toBe(256);
  });
});
