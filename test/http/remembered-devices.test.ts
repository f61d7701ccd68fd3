import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { Access, type AccessCode, getAccessCode } from '../../functions/store/access-codes.js';
import { bindingsOfCode } from '../../functions/store/mac-bindings.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, useLocalServer } from '../support/http.js';

/** The portal's "Reconnecter cet appareil automatiquement" and "Oublier cet appareil", through the local server. */
const server = useLocalServer();
const post = (path: string, body: unknown) => call(server.url(), 'POST', path, { body });

async function codeOf(resellerId: string, overrides: Partial<AccessCode> = {}): Promise<string> {
  const code = randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase();
  await Access.put({
    code,
    reseller_id: resellerId,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: SEED_FORFAITS[0]?.id as string,
    offer: { duration_hours: 2, data_limit_mb: 0, cir_kbps: 256, mir_kbps: 1024, max_devices: 1 },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
    ...overrides,
  });
  return code;
}

describe('remembering a device for MAC login', () => {
  it('binds the MAC, in any usual spelling, until the end the code could reach', async () => {
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId);
    const code = await codeOf(resellerId);
    const before = Date.now();

    const res = await post('/api/v1/access/devices', { nas_id: nasId, code, mac: 'aa-bb-cc-dd-ee-01' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      code,
      mac: 'AA:BB:CC:DD:EE:01',
      nas_id: nasId,
      bound_devices: 1,
      max_devices: 1,
    });
    // A code not started yet: at most its forfait's hours from now.
    const end = Date.parse(String(res.body.expires_at));
    expect(end).toBeGreaterThanOrEqual(before + 2 * 3600_000);
    expect(end).toBeLessThan(Date.now() + 2 * 3600_000 + 5000);
    // The same device again is no new place, whatever the spelling.
    expect((await post('/api/v1/access/devices', { nas_id: nasId, code, mac: 'AABBCCDDEE01' })).status).toBe(
      200,
    );
    expect((await getAccessCode(code))?.bound_devices).toBe(1);
  });

  it('refuses bad input with a 4xx and a stable code, and writes nothing', async () => {
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId);
    const otherNas = await hotspotOf(randomUUID());
    const code = await codeOf(resellerId);
    const expired = await codeOf(resellerId, {
      started_at: new Date(Date.now() - 3 * 3600_000).toISOString(),
      expires_at: new Date(Date.now() - 3600_000).toISOString(),
    });
    const mac = '02:00:00:00:00:0A';

    const cases: [unknown, number, string][] = [
      [{ nas_id: nasId, code, mac: 'not-a-mac' }, 400, 'ERR_VALIDATION'],
      [{ nas_id: nasId, code, mac: '02:00:00:00:00' }, 400, 'ERR_VALIDATION'],
      [{ nas_id: nasId, code }, 400, 'ERR_VALIDATION'],
      [{ nas_id: nasId, code, mac, extra: 1 }, 400, 'ERR_VALIDATION'],
      [{ nas_id: 'Bad Id', code, mac }, 400, 'ERR_VALIDATION'],
      [{ nas_id: nasId, code: 'NOSUCHCODE', mac }, 404, 'ERR_NOT_FOUND'],
      // Another reseller's hotspot: the same answer as an unknown code.
      [{ nas_id: otherNas, code, mac }, 404, 'ERR_NOT_FOUND'],
      [{ nas_id: nasId, code: expired, mac }, 409, 'ERR_CONFLICT'],
    ];
    for (const [body, status, errorCode] of cases) {
      const res = await post('/api/v1/access/devices', body);
      expect(
        [res.status, (res.body.error as { code?: string } | undefined)?.code],
        JSON.stringify(body),
      ).toEqual([status, errorCode]);
    }
    expect(await bindingsOfCode(code)).toEqual([]);
    expect(await bindingsOfCode(expired)).toEqual([]);
    expect((await post('/api/v1/access/devices/forget', { nas_id: nasId, code, mac: 'nope' })).status).toBe(
      400,
    );
    expect((await post('/api/v1/access/devices/forget', { nas_id: otherNas, code, mac })).status).toBe(404);
  });

  it('is no way to try codes: past the wrong-code budget of an address, a right code gets the 404 the wrong ones get, and nothing is bound', async () => {
    // One clock window for the whole flood (the budget counts per 10 minutes).
    const start = Math.floor(Date.now() / 600_000 + 7) * 600_000;
    clock.set(() => start + 1000);
    try {
      const resellerId = randomUUID();
      const nasId = await hotspotOf(resellerId);
      const code = await codeOf(resellerId);
      const remember = (c: string) =>
        post('/api/v1/access/devices', { nas_id: nasId, code: c, mac: '02:00:00:00:00:0B' });
      for (let i = 0; i < 20; i++)
        expect((await remember(`WRONG${String(i).padStart(5, '0')}`)).status).toBe(404);
      const right = await remember(code);
      expect([right.status, right.body]).toEqual([404, (await remember('WRONG99999')).body]);
      expect(await bindingsOfCode(code)).toEqual([]);
    } finally {
      clock.reset();
    }
  });
});
