import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Replica } from '../../functions/edge/replica.js';
import { type EdgeData, replicaStore } from '../../functions/edge-service/replica-store.js';
import type { Refusal } from '../../functions/radius/attributes.js';
import { accountingExchange, authorizeExchange } from '../../functions/radius/exchange.js';
import type { Exchange } from '../../functions/radius/port.js';
import { regionExchange } from '../../functions/radius/table-store.js';
import { Access, type AccessCode, bytesOfMb, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { Router } from '../../functions/store/routers.js';
import { getSession } from '../../functions/store/sessions.js';
import { paidCode } from '../support/access.js';
import { useTestTable } from '../support/db.js';
import { drainStreams } from '../support/streams.js';

// The same decisions on both roads: the region (the table) and an in-country edge during a cut
// (its replica in memory, functions/edge-service/replica-store.ts). Each case puts one code's
// state in both stores and asks both the same thing at the same instant, through the same
// exchange (functions/radius/exchange.ts): they answer alike and leave the code alike. The full
// code whose last place a MAC login holds is among them (the region frees that place for a typed
// code; an edge that decided with a copy of the rule refused).

useTestTable({ streams: true });

const NOW = Date.now();
const S = Math.floor(NOW / 1000);
const MAC = '02:00:00:00:42:01';
const OTHER = '02:00:00:00:42:02';

interface Place {
  resellerId: string;
  nasId: string;
  routerId: string;
}

async function place(): Promise<Place> {
  const p = {
    resellerId: randomUUID(),
    nasId: `access_same_${randomUUID().slice(0, 8)}`,
    routerId: `rtr_same_${randomUUID().replace(/-/g, '').slice(0, 10)}`,
  };
  await Nas.put({
    nas_id: p.nasId,
    reseller_id: p.resellerId,
    reseller_name: 'Same',
    vlan_id: 10,
    kind: 'vlan',
  });
  await Router.put({
    router_id: p.routerId,
    reseller_id: p.resellerId,
    name: 'Same',
    nas_ids: [p.nasId],
    transport: 'udp',
    source_ip: '192.0.2.42',
    status: 'active',
    created_at: new Date(NOW).toISOString(),
    last_heard_at: new Date(NOW).toISOString(),
  });
  return p;
}

/** The edge's store holding `code` as the table holds it, with the region's rules. */
function edgeOf(p: Place, code: AccessCode, counts = true): { data: EdgeData; x: Exchange } {
  const replica: Replica = {
    edge_id: 'e',
    generated_at: new Date(NOW).toISOString(),
    routers: [{ router_id: p.routerId, reseller_id: p.resellerId, transport: 'udp', nas_ids: [p.nasId] }],
    nas: [{ nas_id: p.nasId, reseller_id: p.resellerId, vendor: 'mikrotik' }],
    codes: [
      {
        code: code.code,
        reseller_id: code.reseller_id,
        offer: code.offer,
        ...(code.started_at ? { started_at: code.started_at } : {}),
        ...(code.expires_at ? { expires_at: code.expires_at } : {}),
        ...(code.use_by ? { use_by: code.use_by } : {}),
        used_bytes: code.used_bytes,
      },
    ],
  };
  const data: EdgeData = {
    replica,
    sessions: {},
    codes: {
      [code.code]: {
        devices: { ...code.devices },
        ...(code.grants ? { grants: { ...code.grants } } : {}),
        ...(code.mac_leases ? { mac_leases: { ...code.mac_leases } } : {}),
        devices_version: code.devices_version,
        unsynced: 0,
      },
    },
  };
  const region = regionExchange(NOW);
  return {
    data,
    x: { store: replicaStore(data, { counts, changed: () => undefined }), nowMs: NOW, rules: region.rules },
  };
}

const loginOf = (p: Place, typed: string, mac: string, extra: Record<string, string> = {}) =>
  new Map(
    Object.entries({
      'Hotspot-Router-Id': p.routerId,
      'NAS-Identifier': p.nasId,
      'User-Name': typed,
      'User-Password': typed,
      'Calling-Station-Id': mac,
      'Hotspot-Login-At-Authorize': '1',
      ...extra,
    }),
  );

/** What a code's state decides a login by, as either store holds it. */
const stateOf = (c: Pick<AccessCode, 'devices' | 'grants' | 'mac_leases'> | undefined) => ({
  devices: Object.keys(c?.devices ?? {}).sort(),
  grants: c?.grants ?? {},
  mac_leases: c?.mac_leases ?? {},
});

const device = (p: Place, mac: string) => `${p.nasId}/${mac}`;

interface Case {
  name: string;
  /** What both decide: let in (and written, `recorded`), the password to check, or the refusal. */
  decided: 'recorded' | 'password' | Refusal;
  code: (p: Place) => AccessCode;
  login?: (p: Place, c: AccessCode) => Map<string, string>;
}

const CASES: Case[] = [
  { name: 'a code never used', decided: 'recorded', code: (p) => paidCode(p.resellerId) },
  {
    name: 'a full code: another device holds the one place',
    decided: 'device_limit',
    code: (p) =>
      paidCode(
        p.resellerId,
        {},
        { devices: { [device(p, OTHER)]: S + 300 }, grants: { [device(p, OTHER)]: 1000 } },
      ),
  },
  {
    name: 'a full code whose last place a MAC login holds: the typed code takes it',
    decided: 'recorded',
    code: (p) =>
      paidCode(
        p.resellerId,
        {},
        {
          devices: { [device(p, OTHER)]: S + 300 },
          grants: { [device(p, OTHER)]: 1000 },
          mac_leases: { [device(p, OTHER)]: 1 },
        },
      ),
  },
  {
    name: 'the same device again, its lease still live, a second place free',
    decided: 'recorded',
    code: (p) =>
      paidCode(
        p.resellerId,
        { max_devices: 2 },
        { devices: { [device(p, MAC)]: S + 300 }, grants: { [device(p, MAC)]: 5000 } },
      ),
  },
  {
    name: 'a lease that ended frees its place',
    decided: 'recorded',
    code: (p) =>
      paidCode(
        p.resellerId,
        {},
        { devices: { [device(p, OTHER)]: S - 1 }, grants: { [device(p, OTHER)]: 1000 } },
      ),
  },
  {
    name: 'its data used up',
    decided: 'data_used',
    code: (p) => paidCode(p.resellerId, { data_limit_mb: 1 }, { used_bytes: bytesOfMb(1) }),
  },
  {
    name: 'its time over',
    decided: 'expired',
    code: (p) =>
      paidCode(
        p.resellerId,
        {},
        {
          started_at: new Date(NOW - 25 * 3_600_000).toISOString(),
          expires_at: new Date(NOW - 3_600_000).toISOString(),
        },
      ),
  },
  {
    name: 'a card past its use-by date',
    decided: 'expired',
    code: (p) => paidCode(p.resellerId, {}, { use_by: new Date(NOW - 1000).toISOString() }),
  },
  { name: "another reseller's code", decided: 'wrong_hotspot', code: () => paidCode(randomUUID()) },
  {
    name: 'a wrong password',
    decided: 'password',
    code: (p) => paidCode(p.resellerId),
    login: (p, c) => loginOf(p, c.code, MAC, { 'User-Password': 'NOPE' }),
  },
  {
    name: 'a CHAP login (the password checked by FreeRADIUS)',
    decided: 'password',
    code: (p) => paidCode(p.resellerId),
    login: (p, c) => loginOf(p, c.code, MAC, { 'Hotspot-Login-At-Authorize': '0' }),
  },
];

describe('a login decided by the region and by an edge during a cut', () => {
  it.each(CASES)('$name: the same answer, and the code left the same', async (c) => {
    const p = await place();
    const code = c.code(p);
    await Access.put(code);
    const edge = edgeOf(p, code);
    const attrs = (c.login ?? ((pl, cd) => loginOf(pl, cd.code, MAC)))(p, code);

    const region = await authorizeExchange(attrs, regionExchange(NOW));
    const atEdge = await authorizeExchange(attrs, edge.x);

    const d = region.decision;
    expect(d?.accept ? (d.recorded ? 'recorded' : 'password') : d?.reason).toBe(c.decided);
    expect(atEdge.status).toBe(region.status);
    expect(atEdge.decision).toEqual(region.decision);
    expect(stateOf(edge.data.codes[code.code])).toEqual(stateOf(await getAccessCode(code.code)));
  });

  it('an unknown code: refused on both roads (at the edge with the message of the cut)', async () => {
    const p = await place();
    const known = paidCode(p.resellerId);
    const edge = edgeOf(p, known);
    const attrs = loginOf(p, 'NOSUCHCODE9', MAC);
    const region = await authorizeExchange(attrs, regionExchange(NOW));
    const atEdge = await authorizeExchange(attrs, edge.x);
    expect([region.decision, atEdge.decision]).toEqual([
      { accept: false, reason: 'unknown_code' },
      { accept: false, reason: 'unknown_code' },
    ]);
  });
});

describe('a session reported to the region and to an edge during a cut', () => {
  it('meets one accounting: the same totals kept, the same bytes charged to the code, a replay counted once', async () => {
    const p = await place();
    const code = paidCode(p.resellerId, { data_limit_mb: 100 });
    await Access.put(code);
    const edge = edgeOf(p, code);
    const id = randomUUID();
    const report = (status: string, bytes: number, t: number) =>
      new Map(
        Object.entries({
          'Hotspot-Router-Id': p.routerId,
          'NAS-Identifier': p.nasId,
          'Acct-Status-Type': status,
          'Acct-Unique-Session-Id': id,
          'User-Name': code.code,
          'Calling-Station-Id': MAC,
          'Acct-Input-Octets64': String(Math.floor(bytes / 4)),
          'Acct-Output-Octets64': String(bytes - Math.floor(bytes / 4)),
          'Acct-Session-Time': String(t),
        }),
      );
    const reports = [
      report('Start', 0, 0),
      report('Interim-Update', 3 * 2 ** 20, 300),
      // A report late and out of order, then one sent twice (a journal replayed after a crash).
      report('Interim-Update', 2 ** 20, 150),
      report('Interim-Update', 7 * 2 ** 20, 600),
      report('Interim-Update', 7 * 2 ** 20, 600),
      report('Stop', 9 * 2 ** 20, 700),
    ];
    for (const r of reports) {
      const region = await accountingExchange(r, regionExchange(NOW));
      const atEdge = await accountingExchange(r, edge.x);
      expect(atEdge).toEqual(region);
    }
    await drainStreams();
    const session = await getSession(id);
    expect(edge.data.sessions[id]).toMatchObject({
      total_bytes: session?.total_bytes,
      input_bytes: session?.input_bytes,
      output_bytes: session?.output_bytes,
      session_time_s: session?.session_time_s,
      status: 'closed',
    });
    expect(session?.total_bytes).toBe(9 * 2 ** 20);
    expect(edge.data.codes[code.code]?.unsynced).toBe((await getAccessCode(code.code))?.used_bytes);
    expect(stateOf(edge.data.codes[code.code]).devices).toEqual([]);
  });
});
