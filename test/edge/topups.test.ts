import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { Nas } from '../../functions/store/nas.js';
import { call, tokenFor } from '../support/http.js';
import {
  asRouter,
  type EdgeContext,
  edgeStack,
  givenUdpRouter,
  type RadiusAttributes,
  type TestRouter,
} from '../support/radius.js';

// A top-up seen from the router: radclient -> FreeRADIUS (shipped config) -> the local API ->
// DynamoDB Local. The top-up is made through the API as a reseller's console makes it; the
// code's next login is answered from its new limits.

let edge: EdgeContext;
const MiB = 2 ** 20;
const hour = SEED_FORFAITS[0] as (typeof SEED_FORFAITS)[number];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
});

let router: TestRouter;
let seq = 0;
async function hotspot() {
  seq += 1;
  const resellerId = randomUUID();
  const nasId = `access_topup_${Date.now().toString(36)}_${seq}`;
  await Nas.put({ nas_id: nasId, reseller_id: resellerId, reseller_name: 'Edge', vlan_id: 10, kind: 'vlan' });
  router = await givenUdpRouter(edge, resellerId, [nasId]);
  return { resellerId, nasId, token: await tokenFor('reseller', { resellerId }) };
}

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
async function code(resellerId: string, overrides: Partial<AccessCode> = {}): Promise<string> {
  const c = Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');
  await Access.put({
    code: c,
    reseller_id: resellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: hour.id,
    forfait_name: hour.name,
    offer: { duration_hours: 24, data_limit_mb: 100, cir_kbps: 512, mir_kbps: 2048, max_devices: 1 },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
    ...overrides,
  });
  return c;
}

const MAC = '02:00:00:00:00:07';
const login = (c: string, nasId: string) =>
  asRouter(edge, router).auth({
    'User-Name': c,
    'User-Password': c,
    'NAS-Identifier': nasId,
    'Calling-Station-Id': MAC,
  });
const acct = (status: string, c: string, nasId: string, sessionId: string, bytes: number) =>
  asRouter(edge, router).acct({
    'Acct-Status-Type': status,
    'User-Name': c,
    'NAS-Identifier': nasId,
    'NAS-IP-Address': '127.0.0.1',
    'Acct-Session-Id': sessionId,
    'Calling-Station-Id': MAC,
    'Acct-Input-Octets': 0,
    'Acct-Output-Octets': bytes,
    'Acct-Session-Time': 60,
  } satisfies RadiusAttributes);
const first = (reply: { attributes: Record<string, string[]> }, name: string) => reply.attributes[name]?.[0];

const topUp = (token: string, c: string, forfaitId: string) =>
  call(edge.apiUrl, 'POST', `/api/v1/access/${c}/topups`, { token, body: { forfait_id: forfaitId } });

describe('a top-up, through FreeRADIUS', () => {
  it('lets a code whose data was used up log in again, with the data the top-up added', async () => {
    const { resellerId, nasId, token } = await hotspot();
    const c = await code(resellerId);
    const accepted = await login(c, nasId);
    expect(accepted.code).toBe('Access-Accept');
    expect(Number(first(accepted, 'Mikrotik-Total-Limit'))).toBe(100 * MiB);
    // The session uses its 100 MB and ends.
    const session = randomUUID().slice(0, 8);
    expect((await acct('Start', c, nasId, session, 0)).code).toBe('Accounting-Response');
    expect((await acct('Stop', c, nasId, session, 100 * MiB)).code).toBe('Accounting-Response');
    const refused = await login(c, nasId);
    expect([refused.code, first(refused, 'Reply-Message')]).toEqual([
      'Access-Reject',
      'Volume de données épuisé',
    ]);

    const topped = await topUp(token, c, hour.id);
    expect(topped.status, JSON.stringify(topped.body)).toBe(201);
    const again = await login(c, nasId);
    expect(again.code).toBe('Access-Accept');
    // What the top-up added, and nothing more: the first 100 MB stay counted.
    expect(Number(first(again, 'Mikrotik-Total-Limit'))).toBe(hour.data_limit_mb * MiB);
    expect((await getAccessCode(c))?.offer.data_limit_mb).toBe(100 + hour.data_limit_mb);
  });

  it('lets a code whose time ran out log in again, for the time the top-up added', async () => {
    const { resellerId, nasId, token } = await hotspot();
    const past = new Date(Date.now() - 60_000).toISOString();
    const c = await code(resellerId, { started_at: past, expires_at: past });
    const refused = await login(c, nasId);
    expect([refused.code, first(refused, 'Reply-Message')]).toEqual(['Access-Reject', 'Forfait expiré']);
    expect((await topUp(token, c, hour.id)).status).toBe(201);
    const again = await login(c, nasId);
    expect(again.code).toBe('Access-Accept');
    const timeout = Number(first(again, 'Session-Timeout'));
    expect(timeout).toBeGreaterThan(hour.duration_hours * 3600 - 120);
    expect(timeout).toBeLessThanOrEqual(hour.duration_hours * 3600);
  });

  it('gives a live code the longer time at its next login: its end moved by the top-up', async () => {
    const { resellerId, nasId, token } = await hotspot();
    const c = await code(resellerId, {
      offer: { duration_hours: 1, data_limit_mb: 0, cir_kbps: 512, mir_kbps: 2048, max_devices: 1 },
    });
    const before = Number(first(await login(c, nasId), 'Session-Timeout'));
    expect(before).toBeLessThanOrEqual(3600);
    const session = randomUUID().slice(0, 8);
    await acct('Start', c, nasId, session, 0);
    expect((await topUp(token, c, hour.id)).status).toBe(201);
    await acct('Stop', c, nasId, session, MiB);
    const after = Number(first(await login(c, nasId), 'Session-Timeout'));
    expect(after).toBeGreaterThan(before + 3600 - 120);
    expect(after).toBeLessThanOrEqual(2 * 3600);
  });
});
