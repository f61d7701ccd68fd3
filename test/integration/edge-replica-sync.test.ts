import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EdgePrincipal } from '../../functions/core/principal.js';
import { type ReplicaPage, replicaPage } from '../../functions/edge/replica.js';
import {
  Access,
  type AccessCode,
  accessCodeCreate,
  accessCodeExtend,
  claimDevice,
  revokeAccessCode,
} from '../../functions/store/access-codes.js';
import { transact } from '../../functions/store/entity.js';
import { paidCode } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';

// Issue 42, item 2: the replica's first sync is paged over any stock, and a later sync reads
// only what changed since the cursor the region handed out (the replicaChanges index, gsi6).

useTestTable();

const resellerId = randomUUID();
const other = randomUUID();
const edge: EdgePrincipal = { role: 'edge', edgeId: randomUUID(), resellerIds: [resellerId] };
const STOCK = 1200;
const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
let stock: AccessCode[];

/** Every page of a sync, asked as an edge asks them. */
async function syncAll(cursor?: string, pageCodes?: number) {
  const pages: ReplicaPage[] = [];
  let ask: { cursor?: string; page?: string } = cursor ? { cursor } : {};
  for (;;) {
    const page = await replicaPage(edge, ask, Date.now(), '', pageCodes);
    pages.push(page);
    if (!page.next_page) return pages;
    ask = { page: page.next_page };
  }
}

beforeAll(async () => {
  // A printed stock sold an hour ago (never used), and another reseller's codes.
  stock = Array.from({ length: STOCK }, () =>
    paidCode(resellerId, {}, { source: 'voucher', voucher_status: 'active', created_at: hourAgo }),
  );
  const theirs = Array.from({ length: 50 }, () => paidCode(other, {}, { created_at: hourAgo }));
  const all = [...stock, ...theirs];
  for (let i = 0; i < all.length; i += 100)
    await Promise.all(all.slice(i, i + 100).map((c) => Access.put(c)));
}, 180_000);

describe("an edge's replica", () => {
  it('is read whole by a first sync, in pages within the limit, its own resellers only', async () => {
    const pages = await syncAll(undefined, 500);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const p of pages) {
      expect(p.kind).toBe('full');
      expect(p.codes.length).toBeLessThanOrEqual(500);
      expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThan(6 * 1024 * 1024);
    }
    // The routers on the first page only; the cursor on the last only.
    expect(pages[0]?.routers).toBeDefined();
    expect(pages.slice(1).every((p) => p.routers === undefined)).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.cursor === undefined)).toBe(true);
    expect(pages.at(-1)?.cursor).toBeDefined();
    const codes = pages.flatMap((p) => p.codes.map((c) => c.code));
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.sort()).toEqual(stock.map((c) => c.code).sort());
    expect(pages[0]?.codes[0]?.source).toBe('voucher');
  }, 120_000);

  it('reads only the 10 changes since its cursor, in calls and read units that do not grow with the stock', async () => {
    const cursor = (await syncAll()).at(-1)?.cursor as string;
    const nowIso = new Date().toISOString();
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    // 10 changes: 4 sales, 3 first logins, 2 top-ups, 1 revocation.
    const sold = Array.from({ length: 4 }, () => paidCode(resellerId));
    await transact(Object.fromEntries(sold.map((c, i) => [`c${i}`, accessCodeCreate(c)])));
    const used = stock.slice(0, 3);
    for (const c of used)
      expect(
        await claimDevice({ code: c, devices: { d1: 1 }, nowIso, expiresAt: expires, nasId: 'n1' }),
      ).toBe(true);
    const topped = stock.slice(3, 5);
    for (const c of topped) {
      const read = (await Access.get({ code: c.code }, { consistent: true })) as AccessCode;
      await transact({ t: accessCodeExtend(read, { offer: { ...read.offer, duration_hours: 48 } }, nowIso) });
    }
    const revoked = stock[5] as AccessCode;
    await revokeAccessCode(revoked.code, nowIso);

    const probe = probeDdb();
    probe.reset();
    const pages = await syncAll(cursor);
    const changed = pages.flatMap((p) => p.codes.map((c) => c.code));
    expect(changed.sort()).toEqual([...sold, ...used, ...topped].map((c) => c.code).sort());
    expect(pages.flatMap((p) => p.removed)).toEqual([revoked.code]);
    expect(pages.every((p) => p.kind === 'changes')).toBe(true);
    // The first use's clock and the top-up's offer are in the change.
    const byCode = new Map(pages.flatMap((p) => p.codes).map((c) => [c.code, c]));
    expect(byCode.get(used[0]?.code as string)?.started_at).toBe(nowIso);
    expect(byCode.get(topped[0]?.code as string)?.offer.duration_hours).toBe(48);
    // One query per shard (16) and the routers' reads: nothing in proportion to the 1,200 codes.
    const queries = probe.calls.filter((c) => c === 'QueryCommand').length;
    expect(queries).toBeLessThanOrEqual(17 + 2);
    const units = probe.consumed.reduce((n, c) => n + c.readUnits, 0);
    expect(units).toBeLessThan(STOCK / 40);
  }, 120_000);

  it('refuses a page token that names another partition, with a 400', async () => {
    const forged = Buffer.from(
      JSON.stringify({ at: Date.now(), part: 0, start: { gsi6pk: `REPLICA#${other}#00`, gsi6sk: 'x' } }),
    ).toString('base64url');
    await expect(replicaPage(edge, { page: forged }, Date.now())).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
    });
    await expect(replicaPage(edge, { page: 'not-json' }, Date.now())).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
    });
  });
});
