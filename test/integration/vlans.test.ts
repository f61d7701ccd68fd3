import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { AppError } from '../../functions/core/errors.js';
import { allocateVlan, releaseVlan } from '../../functions/network/vlans.js';
import { listRules } from '../../functions/store/gateway-rules.js';
import { getNas } from '../../functions/store/nas.js';
import { getReseller, listAllocations, readPool, recordResellerName } from '../../functions/store/vlans.js';
import { createTestTable } from '../support/db.js';
import { probeDdb } from '../support/ddb-instrument.js';

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

describe('VLAN pool under 420 parallel allocations', () => {
  it('creates exactly 400 VLANs with distinct ids and subnets, and refuses 20 with ERR_VLAN_POOL_EXHAUSTED', async () => {
    await createTestTable();
    const results = await Promise.all(
      Array.from({ length: 420 }, (_, i) =>
        outcome(allocateVlan({ resellerId: randomUUID(), resellerName: `Reseller ${i}`, siteCount: 1 })),
      ),
    );
    const made = results.filter((r): r is { vlan_id: number; subnet: string } => typeof r === 'object');
    expect(made).toHaveLength(400);
    expect(results.filter((r) => r === 'ERR_VLAN_POOL_EXHAUSTED')).toHaveLength(20);
    const ids = new Set(made.map((a) => a.vlan_id));
    expect(ids.size).toBe(400);
    expect(Math.min(...ids)).toBe(10);
    expect(Math.max(...ids)).toBe(409);
    const subnets = new Set(made.map((a) => a.subnet));
    expect(subnets.size).toBe(400);
    for (const s of subnets) expect(s).toMatch(/^10\.(\d{1,3})\.(\d{1,3})\.0\/24$/);
    for (const s of subnets)
      for (const octet of s.split(/[./]/).slice(0, 4)) expect(Number(octet)).toBeLessThan(256);
    expect((await listAllocations()).length).toBe(400);
    expect(await readPool()).toEqual({ next: 410, free: [] });
  }, 120_000);
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
    expect(rules.every((r) => r.active && r.description.length > 10)).toBe(true);
    expect(await getNas('access_chez_awa')).toMatchObject({
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

  it('lets one of two names with the same slug win when they race', async () => {
    await createTestTable();
    const [a, b] = await Promise.all([
      outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'Café Étoile', siteCount: 1 })),
      outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'CAFE  ETOILE!', siteCount: 1 })),
    ]);
    expect([a, b].filter((r) => typeof r === 'object')).toHaveLength(1);
    expect([a, b]).toContain('ERR_DUPLICATE_NAS_ID');
  });

  it('refuses a second VLAN for the same reseller, and leaves nothing of the failed attempt', async () => {
    await createTestTable();
    const resellerId = randomUUID();
    await allocateVlan({ resellerId, resellerName: 'Maquis Bon Coin', siteCount: 1 });
    const pool = await readPool();
    expect(await outcome(allocateVlan({ resellerId, resellerName: 'Another Name', siteCount: 1 }))).toBe(
      'ERR_DUPLICATE_NAS_ID',
    );
    expect(await readPool()).toEqual(pool);
    expect(await getNas('access_another_name')).toBeUndefined();
    expect(await partitionOf('VLAN#11')).toEqual([]);
    expect(await partitionOf('VLAN#11#RULES')).toEqual([]);
  });

  it('uses the name on record when given only the reseller id, and 404 without one', async () => {
    await createTestTable();
    const known = randomUUID();
    await recordResellerName(known, 'Wifi Plateau');
    expect(await allocateVlan({ resellerId: known })).toMatchObject({ nas_id: 'access_wifi_plateau' });
    expect(await outcome(allocateVlan({ resellerId: randomUUID() }))).toBe('ERR_NOT_FOUND');
  });

  it('leaves nothing behind when DynamoDB fails the transaction', async () => {
    await createTestTable();
    probeDdb().failOn(1, { only: ['TransactWriteItemsCommand'] });
    const resellerId = randomUUID();
    const failed = await outcome(allocateVlan({ resellerId, resellerName: 'Fault Line', siteCount: 1 }));
    expect(failed).toMatch(/ProvisionedThroughputExceeded/);
    expect(await readPool()).toEqual({ next: undefined, free: [] });
    expect(await getNas('access_fault_line')).toBeUndefined();
    expect(await getReseller(resellerId)).toBeUndefined();
    expect(await listRules()).toEqual([]);
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
    expect((await readPool()).free).toEqual([first.vlan_id]);

    const reused = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Newcomer', siteCount: 1 });
    expect(reused.vlan_id).toBe(first.vlan_id);
    const after = await allocateVlan({ resellerId: randomUUID(), resellerName: 'Next One', siteCount: 1 });
    expect(after.vlan_id).toBe(12);
    // The released name can be taken again.
    expect(
      await outcome(allocateVlan({ resellerId: randomUUID(), resellerName: 'Leaving Soon', siteCount: 1 })),
    ).toMatchObject({ vlan_id: 13 });
  });

  it('answers 404 for a VLAN that is not allocated', async () => {
    await createTestTable();
    expect(await outcome(releaseVlan(99))).toBe('ERR_NOT_FOUND');
  });

  it('keeps the counter item apart from allocations', async () => {
    await createTestTable();
    await allocateVlan({ resellerId: randomUUID(), resellerName: 'Solo', siteCount: 1 });
    const counter = await ddb().send(
      new GetCommand({ TableName: tableName(), Key: { pk: 'VLAN#COUNTER', sk: 'COUNTER' } }),
    );
    expect(counter.Item?.next).toBe(11);
  });
});
