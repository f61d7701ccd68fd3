import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { AppError } from '../../functions/core/errors.js';
import type { Principal } from '../../functions/core/principal.js';
import { defaultRules } from '../../functions/network/default-rules.js';
import { addSite } from '../../functions/network/sites.js';
import { allocateVlan, pickFree, releaseVlan } from '../../functions/network/vlans.js';
import { listRules } from '../../functions/store/gateway-rules.js';
import { getNas, listNasIdsOfReseller } from '../../functions/store/nas.js';
import { getReseller, recordReseller } from '../../functions/store/resellers.js';
import { listSites } from '../../functions/store/sites.js';
import { allocateTx, listAllocations, readTaken } from '../../functions/store/vlans.js';
import { createTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';

const admin: Principal = { sub: randomUUID(), role: 'admin', ref: 'SUB-1', exp: 4102444800 };

const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => v,
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );

const partitionOf = async (pk: string) =>
  (
    await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': pk },
      }),
    )
  ).Items ?? [];

const withEnv = (vars: Record<string, string>) => {
  Object.assign(process.env, vars);
  resetConfig();
};

afterEach(() => {
  delete process.env.VLAN_ALLOCATION_LANES;
  delete process.env.VLAN_FIRST_ID;
  delete process.env.VLAN_POOL_SIZE;
  resetConfig();
});

async function allocate420() {
  const results = await Promise.all(
    Array.from({ length: 420 }, (_, i) =>
      outcome(allocateVlan({ resellerId: randomUUID(), resellerName: `Reseller ${i}`, siteCount: 1 })),
    ),
  );
  const made = results.filter((r): r is { vlan_id: number; subnet: string } => typeof r === 'object');
  return { results, made };
}

function expectAFullPool({ results, made }: Awaited<ReturnType<typeof allocate420>>) {
  expect(results.filter((r) => typeof r === 'string' && r !== 'ERR_VLAN_POOL_EXHAUSTED')).toEqual([]);
  expect(made).toHaveLength(400);
  expect(results.filter((r) => r === 'ERR_VLAN_POOL_EXHAUSTED')).toHaveLength(20);
  const ids = new Set(made.map((a) => a.vlan_id));
  expect(ids.size).toBe(400);
  expect(Math.min(...ids)).toBe(10);
  expect(Math.max(...ids)).toBe(409);
  const subnets = new Set(made.map((a) => a.subnet));
  expect(subnets.size).toBe(400);
  for (const s of subnets) {
    expect(s).toMatch(/^10\.\d{1,3}\.\d{1,3}\.0\/24$/);
    for (const octet of s.split(/[./]/).slice(0, 4)) expect(Number(octet)).toBeLessThan(256);
  }
}

describe('VLAN pool under 420 parallel allocations', () => {
  it('creates exactly 400 VLANs with distinct ids and subnets, and refuses 20 with ERR_VLAN_POOL_EXHAUSTED', async () => {
    await createTestTable();
    expectAFullPool(await allocate420());
    expect((await listAllocations()).length).toBe(400);
    expect(await readTaken()).toEqual(Array.from({ length: 400 }, (_, i) => 10 + i));
  }, 180_000);

  it('stays exact when 64 containers allocate at once, retrying the races they lose', async () => {
    await createTestTable();
    withEnv({ VLAN_ALLOCATION_LANES: '64' });
    const probe = probeDdb();
    probe.reset();
    expectAFullPool(await allocate420());
    const transactions = probe.calls.filter((c) => c === 'TransactWriteItemsCommand').length;
    // At least one transaction per VLAN; any race lost was retried and left no trace.
    expect(transactions).toBeGreaterThanOrEqual(400);
    expect((await listAllocations()).length).toBe(400);
    expect((await listRules()).length).toBe(1200);
    expect(await readTaken()).toEqual(Array.from({ length: 400 }, (_, i) => 10 + i));
  }, 180_000);
});

describe('VLAN allocation', () => {
  it('follows the spec shapes: subnet, nas_id from the slug, ssid, and three default rules', async () => {
    await createTestTable();
    const resellerId = randomUUID();
    const a = await allocateVlan({ resellerId, resellerName: 'Chez Awa', siteCount: 2 });
    expect(a).toMatchObject({
      vlan_id: 10,
      subnet: '10.10.0.0/24',
      nas_id: 'access_chez_awa',
      ssid: 'ACCESS Chez Awa',
    });
    const rules = await listRules(10);
    expect(rules.map((r) => r.rule_type)).toEqual(['DENY_DEFAULT', 'ALLOW_DNS_SINKHOLE', 'ALLOW_INTERNET']);
    expect(rules.every((r) => r.active && r.vlan === 10 && r.description.length > 10)).toBe(true);
    expect(await getNas('access_chez_awa')).toMatchObject({
      nas_id: 'access_chez_awa',
      reseller_id: resellerId,
      vlan_id: 10,
      kind: 'vlan',
    });
    expect(await getReseller(resellerId)).toMatchObject({
      vlan_id: 10,
      site_count: 2,
      reseller_name: 'Chez Awa',
    });
  });

  it('stores the NAS record at NAS#<nas_id> with the shape other areas read', async () => {
    await createTestTable();
    const resellerId = randomUUID();
    await allocateVlan({ resellerId, resellerName: 'Maquis Ok', siteCount: 1 });
    const item = (
      await ddb().send(
        new GetCommand({ TableName: tableName(), Key: { pk: 'NAS#access_maquis_ok', sk: 'NAS' } }),
      )
    ).Item;
    expect(item).toMatchObject({
      entity: 'nas',
      nas_id: 'access_maquis_ok',
      reseller_id: resellerId,
      vlan_id: 10,
      kind: 'vlan',
    });
  });

  it('takes ids from the configured first id, and refuses the one past the pool', async () => {
    await createTestTable();
    withEnv({ VLAN_FIRST_ID: '300', VLAN_POOL_SIZE: '2' });
    const a = await allocateVlan({ resellerId: randomUUID(), resellerName: 'One', siteCount: 1 });
    const b = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Two', siteCount: 1 });
    expect([a.vlan_id, b.vlan_id]).toEqual([300, 301]);
    expect([a.subnet, b.subnet]).toEqual(['10.44.1.0/24', '10.45.1.0/24']);
    expect(
      await outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'Three', siteCount: 1 })),
    ).toBe('ERR_VLAN_POOL_EXHAUSTED');
    expect(await getNas('access_three')).toBeUndefined();
  });

  it('lets one of two names with the same slug win when they race', async () => {
    await createTestTable();
    withEnv({ VLAN_ALLOCATION_LANES: '2' });
    const [a, b] = await Promise.all([
      outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'Café Étoile', siteCount: 1 })),
      outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'CAFE  ETOILE!', siteCount: 1 })),
    ]);
    expect([a, b].filter((r) => typeof r === 'object')).toHaveLength(1);
    expect([a, b]).toContain('ERR_DUPLICATE_NAS_ID');
    expect((await listAllocations()).length).toBe(1);
  });

  it('refuses a second VLAN for the same reseller, and leaves nothing of the failed attempt', async () => {
    await createTestTable();
    const resellerId = randomUUID();
    await allocateVlan({ resellerId, resellerName: 'Maquis Bon Coin', siteCount: 1 });
    const taken = await readTaken();
    expect(await outcome(allocateVlan({ resellerId, resellerName: 'Another Name', siteCount: 1 }))).toBe(
      'ERR_DUPLICATE_NAS_ID',
    );
    expect(await outcome(allocateVlan({ resellerId }))).toBe('ERR_DUPLICATE_NAS_ID');
    expect(await readTaken()).toEqual(taken);
    expect(await getNas('access_another_name')).toBeUndefined();
    expect(await partitionOf('VLAN#11')).toEqual([]);
    expect(await partitionOf('VLAN#11#RULES')).toEqual([]);
  });

  it('uses the name and site count on record when given only the reseller id, and 404 without a name', async () => {
    await createTestTable();
    const known = randomUUID();
    await recordReseller({ resellerId: known, name: 'Wifi Plateau' });
    expect(await allocateVlan({ resellerId: known })).toMatchObject({
      nas_id: 'access_wifi_plateau',
      ssid: 'ACCESS Wifi Plateau',
      site_count: 1,
    });
    expect(await outcome(allocateVlan({ resellerId: randomUUID() }))).toBe('ERR_NOT_FOUND');
    expect(await outcome(allocateVlan({ resellerId: randomUUID(), siteCount: 3 }))).toBe('ERR_NOT_FOUND');
  });

  it('refuses a name that folds to an empty slug', async () => {
    await createTestTable();
    expect(
      await outcome(allocateVlan({ resellerId: randomUUID(), resellerName: '¡¿!?', siteCount: 1 })),
    ).toBe('ERR_VALIDATION');
    expect(await readTaken()).toEqual([]);
  });

  it('leaves nothing behind when DynamoDB fails the transaction', async () => {
    await createTestTable();
    probeDdb().failOn(1, { only: ['TransactWriteItemsCommand'] });
    const resellerId = randomUUID();
    const failed = await outcome(allocateVlan({ resellerId, resellerName: 'Fault Line', siteCount: 1 }));
    expect(failed).toMatch(/ProvisionedThroughputExceeded/);
    expect(await readTaken()).toEqual([]);
    expect(await getNas('access_fault_line')).toBeUndefined();
    expect(await getReseller(resellerId)).toBeUndefined();
    expect(await listAllocations()).toEqual([]);
    expect(await listRules()).toEqual([]);
  });

  it('loses, and writes nothing, when the id it read as free was taken meanwhile', async () => {
    await createTestTable();
    const first = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Early', siteCount: 1 });
    // As if read before `first` took id 10.
    const result = await allocateTx({
      allocation: {
        vlan_id: first.vlan_id,
        reseller_id: randomUUID(),
        reseller_name: 'Late',
        subnet: '10.10.0.0/24',
        nas_id: 'access_late',
        ssid: 'ACCESS Late',
        site_count: 1,
        created_at: new Date().toISOString(),
      },
      slug: 'late',
      rules: defaultRules(first.vlan_id),
    });
    expect(result).toBe('race');
    expect(await getNas('access_late')).toBeUndefined();
    expect(await readTaken()).toEqual([10]);
    expect(
      (await allocateVlan({ resellerId: randomUUID(), resellerName: 'Late', siteCount: 1 })).vlan_id,
    ).toBe(11);
  });

  it('fails at once, rather than retrying, when the pool offers an id that is in use', async () => {
    await createTestTable();
    await ddb().send(
      new PutCommand({ TableName: tableName(), Item: { pk: 'VLAN#10', sk: 'ALLOCATION', entity: 'vlan' } }),
    );
    const probe = probeDdb();
    probe.reset();
    const result = await outcome(
      allocateVlan({ resellerId: randomUUID(), resellerName: 'Unlucky', siteCount: 1 }),
    );
    expect(result).toMatch(/^unexpected: /);
    expect(probe.calls.filter((c) => c === 'TransactWriteItemsCommand')).toHaveLength(1);
  });
});

describe('VLAN release', () => {
  it('frees the id, the NAS id and the rules, and the next allocation reuses the id before the counter', async () => {
    await createTestTable();
    const first = await allocateVlan({
      resellerId: randomUUID(),
      resellerName: 'Leaving Soon',
      siteCount: 1,
    });
    await allocateVlan({ resellerId: randomUUID(), resellerName: 'Staying', siteCount: 1 });
    await releaseVlan(first.vlan_id);
    expect(await getNas('access_leaving_soon')).toBeUndefined();
    expect(await listRules(first.vlan_id)).toEqual([]);
    expect(await readTaken()).toEqual([11]);
    expect((await listAllocations()).map((a) => a.vlan_id)).toEqual([11]);

    const reused = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Newcomer', siteCount: 1 });
    expect(reused.vlan_id).toBe(first.vlan_id);
    expect(await listRules(first.vlan_id)).toHaveLength(3);
    const after = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Next One', siteCount: 1 });
    expect(after.vlan_id).toBe(12);
    // The released name can be taken again.
    expect(
      await outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'Leaving Soon', siteCount: 1 })),
    ).toMatchObject({ vlan_id: 13 });
  });

  it('reuses released ids lowest first', async () => {
    await createTestTable();
    const made = [];
    for (const name of ['A1', 'A2', 'A3', 'A4']) {
      made.push(await allocateVlan({ resellerId: randomUUID(), resellerName: name, siteCount: 1 }));
    }
    await releaseVlan(13);
    await releaseVlan(11);
    const ids = [];
    for (const name of ['B1', 'B2', 'B3']) {
      ids.push((await allocateVlan({ resellerId: randomUUID(), resellerName: name, siteCount: 1 })).vlan_id);
    }
    expect(ids).toEqual([11, 13, 14]);
  });

  it('takes a released id when the pool is otherwise exhausted', async () => {
    await createTestTable();
    withEnv({ VLAN_POOL_SIZE: '2' });
    await allocateVlan({ resellerId: randomUUID(), resellerName: 'P1', siteCount: 1 });
    await allocateVlan({ resellerId: randomUUID(), resellerName: 'P2', siteCount: 1 });
    expect(await outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'P3', siteCount: 1 }))).toBe(
      'ERR_VLAN_POOL_EXHAUSTED',
    );
    await releaseVlan(10);
    expect((await allocateVlan({ resellerId: randomUUID(), resellerName: 'P3', siteCount: 1 })).vlan_id).toBe(
      10,
    );
  });

  it('removes the sites with their NAS ids, in several transactions when there are many', async () => {
    await createTestTable();
    const resellerId = randomUUID();
    const a = await allocateVlan({ resellerId, resellerName: 'Big Chain', siteCount: 45 });
    for (let n = 1; n <= 45; n++) {
      await addSite(admin, {
        reseller_id: resellerId,
        site_number: n,
        city: 'Lomé',
        latitude: 6.13,
        longitude: 1.22,
      });
    }
    expect(await listNasIdsOfReseller(resellerId)).toHaveLength(46);
    await releaseVlan(a.vlan_id);
    expect(await listSites(resellerId)).toEqual([]);
    expect(await listNasIdsOfReseller(resellerId)).toEqual([]);
    expect(await getNas('access_big_chain_s45')).toBeUndefined();
    // The reseller keeps its name and site count, so the id-only variant allocates again.
    const again = await allocateVlan({ resellerId });
    expect(again).toMatchObject({ vlan_id: a.vlan_id, nas_id: 'access_big_chain', site_count: 45 });
  });

  it('refuses a site for a VLAN that is being released', async () => {
    await createTestTable();
    const resellerId = randomUUID();
    const a = await allocateVlan({ resellerId, resellerName: 'Half Gone', siteCount: 2 });
    // A release cut short after its first step: the reseller is marked.
    probeDdb().failOn(1, { only: ['QueryCommand'] });
    expect(await outcome(releaseVlan(a.vlan_id))).toMatch(/^unexpected: /);
    const site = { reseller_id: resellerId, site_number: 1, city: 'Kara', latitude: 9.55, longitude: 1.19 };
    expect(await outcome(addSite(admin, site))).toBe('ERR_NOT_FOUND');
    // The next release finishes the job.
    await releaseVlan(a.vlan_id);
    expect(await listAllocations()).toEqual([]);
    expect((await getReseller(resellerId))?.releasing).toBeUndefined();
  });

  it('answers 404 for a VLAN that is not allocated, and for a second release', async () => {
    await createTestTable();
    expect(await outcome(releaseVlan(99))).toBe('ERR_NOT_FOUND');
    const a = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Twice', siteCount: 1 });
    const both = await Promise.all([outcome(releaseVlan(a.vlan_id)), outcome(releaseVlan(a.vlan_id))]);
    expect(both.filter((r) => r === 'ERR_NOT_FOUND').length).toBeGreaterThanOrEqual(1);
    expect(both.filter((r) => r !== 'ERR_NOT_FOUND').every((r) => r === undefined)).toBe(true);
    expect(await readTaken()).toEqual([]);
  });
});

describe('the free id an allocation picks', () => {
  it('is the lowest free id for an allocation running alone, and one of the lowest few under contention', () => {
    const free = [11, 13, 14, 15, 16, 17, 18, 19, 20];
    expect(pickFree(free, 1, 0, () => 0.99)).toBe(11);
    // Four allocations running here: one of the lowest four.
    expect(pickFree(free, 4, 0, () => 0.99)).toBe(15);
    // A race lost doubles the window.
    expect(pickFree(free, 4, 1, () => 0.99)).toBe(19);
    expect(pickFree([12], 64, 9, () => 0.5)).toBe(12);
  });
});
