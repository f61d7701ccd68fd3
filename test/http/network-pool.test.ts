import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer({ seed: false });

describe('POST /network/vlan/allocate, 420 at once through the local server', () => {
  it('answers 201 exactly 400 times with distinct ids and subnets, then 409 ERR_VLAN_POOL_EXHAUSTED, never 5xx', async () => {
    const admin = await tokenFor('admin');
    const responses = await Promise.all(
      Array.from({ length: 420 }, (_, i) =>
        call(server.url(), 'POST', '/api/v1/network/vlan/allocate', {
          token: admin,
          body: { reseller_id: randomUUID(), reseller_name: `Cyber ${i} Treichville`, site_count: 2 },
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const created = responses
      .filter((r) => r.status === 201)
      .map((r) => r.body as { vlan_id: number; subnet: string });
    expect(created).toHaveLength(400);
    expect(new Set(created.map((c) => c.vlan_id)).size).toBe(400);
    expect(new Set(created.map((c) => c.subnet)).size).toBe(400);
    const refused = responses.filter((r) => r.status === 409);
    expect(refused).toHaveLength(20);
    expect(
      refused.every((r) => (r.body as { error: { code: string } }).error.code === 'ERR_VLAN_POOL_EXHAUSTED'),
    ).toBe(true);

    const listed = await call(server.url(), 'GET', '/api/v1/network/vlans?page_size=100&page=4', {
      token: admin,
    });
    expect(listed.body).toMatchObject({ total: 400, page: 4, pages: 4 });
    expect((listed.body as { items: unknown[] }).items).toHaveLength(100);
  }, 180_000);
});
