import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import {
  edgeLinksOf,
  edgeOfReseller,
  getEdge,
  ResellerHasEdge,
  revokeEdge,
} from '../../functions/store/edges.js';
import { adminCli } from '../support/admin-cli.js';
import { useTestTable } from '../support/db.js';

// Issue 42, item 6: a reseller has one edge at most (functions/store/edges.ts). Two edges
// answering its hotspots during a cut would each grant a code's whole allowance.

const table = useTestTable();
const admin = adminCli(table.name);
const nowIso = '2026-03-14T14:00:00.000Z';
const edgeFor = (reseller_ids: string[], address = '192.0.2.10') =>
  registerEdge({ name: 'Edge', reseller_ids, addresses: [address], nowIso });

describe('one edge per reseller', () => {
  it('refuses a second edge for a reseller, and takes one once the first is revoked', async () => {
    const reseller = randomUUID();
    const { edge } = await edgeFor([reseller]);
    await expect(edgeFor([reseller], '192.0.2.11')).rejects.toBeInstanceOf(ResellerHasEdge);
    // Nothing of the refused one was written: the routers' scripts name the first edge only.
    expect((await edgeLinksOf(reseller)).udp).toEqual(['192.0.2.10']);
    expect(await edgeOfReseller(reseller)).toBe(edge.edge_id);
    expect(await revokeEdge(edge.edge_id, nowIso)).toBe(true);
    const second = await edgeFor([reseller], '192.0.2.11');
    expect(await edgeOfReseller(reseller)).toBe(second.edge.edge_id);
    expect((await edgeLinksOf(reseller)).udp).toEqual(['192.0.2.11']);
    // Revoking the first again leaves the second's claim alone.
    expect(await revokeEdge(edge.edge_id, nowIso)).toBe(true);
    expect(await edgeOfReseller(reseller)).toBe(second.edge.edge_id);
  });

  it('lets one of many registrations racing for a reseller win, and refuses the others whole', async () => {
    const shared = randomUUID();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => edgeFor([randomUUID(), shared], `192.0.2.${20 + i}`)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ResellerHasEdge);
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof edgeFor>>>).value.edge;
    expect(await edgeOfReseller(shared)).toBe(winner.edge_id);
    expect((await edgeLinksOf(shared)).udp).toEqual(winner.addresses);
    // A loser's other reseller got no edge either: its transaction was refused whole.
    const losers = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    expect(losers).toHaveLength(7);
    expect(await getEdge(winner.edge_id)).toMatchObject({ status: 'active' });
  });

  it("writes an edge's RadSec files signed by the router CA, and lists it for RadSec routers then", async () => {
    const reseller = randomUUID();
    const { edge } = await edgeFor([reseller]);
    expect(await edgeLinksOf(reseller)).toEqual({ udp: ['192.0.2.10'], radsec: [] });
    const out = mkdtempSync(join(tmpdir(), 'edge-tls-'));
    const issued = await admin('edges', 'tls', '--edge-id', edge.edge_id, '--out', out);
    expect(issued.code, issued.stderr).toBe(0);
    execFileSync('openssl', ['verify', '-CAfile', join(out, 'ca.pem'), join(out, 'server.pem')]);
    expect(statSync(join(out, 'server.key')).mode & 0o077).toBe(0);
    expect(await edgeLinksOf(reseller)).toEqual({ udp: ['192.0.2.10'], radsec: ['192.0.2.10'] });
  });

  it('tells the operator which edge holds the reseller', async () => {
    const reseller = randomUUID();
    const { edge } = await edgeFor([reseller]);
    const refused = await admin('edges', 'add', '--reseller-id', reseller, '--address', '192.0.2.30');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${reseller} (edge ${edge.edge_id}) already has one`);
  });
});
