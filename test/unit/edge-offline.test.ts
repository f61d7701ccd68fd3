import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Replica } from '../../functions/edge/replica.js';
import { EdgeState } from '../../functions/edge-service/offline.js';

// The edge's decisions during a cut (functions/edge-service/offline.ts): the region's rules on the replica,
// with what the edge counted itself.

const NOW = Date.parse('2026-03-14T14:00:00.000Z');
const MB = 1024 * 1024;

function edgeWith(code: Partial<Replica['codes'][number]> = {}): EdgeState {
  const state = new EdgeState(mkdtempSync(join(tmpdir(), 'edge-state-')), 660_000, 300);
  state.replace({
    edge_id: 'e',
    generated_at: new Date(NOW).toISOString(),
    routers: [
      {
        router_id: 'rtr_1',
        reseller_id: 'r1',
        transport: 'udp',
        source_ip: '192.0.2.1',
        secret: 's3cret-s3cret',
        nas_ids: ['access_a'],
      },
    ],
    nas: [{ nas_id: 'access_a', reseller_id: 'r1', vendor: 'mikrotik' }],
    codes: [
      {
        code: 'ABCDEFGH23',
        reseller_id: 'r1',
        offer: { duration_hours: 1, data_limit_mb: 1, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
        used_bytes: 0,
        ...code,
      },
    ],
  });
  return state;
}

const login = (mac: string, over: Record<string, string> = {}) =>
  new Map(
    Object.entries({
      'User-Name': 'abcd-efgh23',
      'User-Password': 'abcd-efgh23',
      'NAS-Identifier': 'access_a',
      'Hotspot-Router-Id': 'rtr_1',
      'Hotspot-Login-At-Authorize': '1',
      'Calling-Station-Id': mac,
      ...over,
    }),
  );

const interim = (bytes: number, status = 'Interim-Update') =>
  new Map(
    Object.entries({
      'Acct-Status-Type': status,
      'Acct-Unique-Session-Id': 'u1',
      'User-Name': 'ABCDEFGH23',
      'NAS-Identifier': 'access_a',
      'Hotspot-Router-Id': 'rtr_1',
      'Calling-Station-Id': '02:00:00:00:00:01',
      'Acct-Input-Octets64': '0',
      'Acct-Output-Octets64': String(bytes),
    }),
  );

describe("the edge's login decisions during a cut", () => {
  it("lets a code in with the region's attributes: its time, rate and data left", async () => {
    const d = await edgeWith().login(login('02:00:00:00:00:01'), NOW);
    expect(d.status).toBe(200);
    expect(d.recorded).toBe(true);
    expect(d.body['reply:Session-Timeout']).toBe(3600);
    expect(d.body['reply:Mikrotik-Total-Limit']).toBe(MB);
    expect(d.body['control:Hotspot-Login-Recorded']).toBe(1);
  });

  it('refuses a second device past the device limit, and the same device again is let in', async () => {
    const edge = edgeWith();
    expect((await edge.login(login('02:00:00:00:00:01'), NOW)).status).toBe(200);
    expect((await edge.login(login('02:00:00:00:00:02'), NOW + 1000)).status).toBe(401);
    // Its lease over (no report for 660 s), the place is free again.
    expect((await edge.login(login('02:00:00:00:00:02'), NOW + 700_000)).status).toBe(200);
  });

  it('counts the data its routers reported during the cut against the code', async () => {
    const edge = edgeWith();
    expect((await edge.login(login('02:00:00:00:00:01'), NOW)).status).toBe(200);
    await edge.account(interim(MB / 2), NOW + 1000, true);
    await edge.account(interim(MB, 'Stop'), NOW + 2000, true);
    const d = await edge.login(login('02:00:00:00:00:01'), NOW + 3000);
    expect(d.status).toBe(401);
    expect(JSON.stringify(d.body)).toContain('Volume de données épuisé');
  });

  it('records nothing for a wrong password (FreeRADIUS rejects it), refuses an unknown code with the message of the cut, and another router', async () => {
    const edge = edgeWith();
    const wrong = await edge.login(login('02:00:00:00:00:01', { 'User-Password': 'NOPE' }), NOW);
    expect(wrong).toMatchObject({ status: 200, recorded: false });
    expect(wrong.body).toEqual({
      'control:Cleartext-Password': { op: ':=', value: 'abcd-efgh23', do_xlat: false },
    });
    const unknown = await edge.login(
      login('02:00:00:00:00:01', { 'User-Name': 'ZZZZ', 'User-Password': 'ZZZZ' }),
      NOW,
    );
    expect(JSON.stringify(unknown.body)).toContain('seuls les codes déjà achetés fonctionnent');
    expect((await edge.login(login('02:00:00:00:00:01', { 'Hotspot-Router-Id': 'rtr_2' }), NOW)).status).toBe(
      401,
    );
  });

  it('answers FreeRADIUS its UDP router by source address, with its secret', () => {
    const edge = edgeWith();
    expect(edge.client('192.0.2.1')?.['control:FreeRADIUS-Client-Secret']).toEqual({
      value: 's3cret-s3cret',
      do_xlat: false,
    });
    expect(edge.client('192.0.2.9')).toBeUndefined();
  });
});
