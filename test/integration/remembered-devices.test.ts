import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forgetMyDevice, myDevices } from '../../functions/portal/remembered-devices.js';
import { revokeCodesOfAccount } from '../../functions/radius/disconnect.js';
import { Access, type AccessCode } from '../../functions/store/access-codes.js';
import { bindingsOfCode, bindMac } from '../../functions/store/mac-bindings.js';
import { useTestTable } from '../support/db.js';

useTestTable();

const exp = 4102444800;

async function boundCode(subscriberId: string, macs: string[]): Promise<AccessCode> {
  const code: AccessCode = {
    code: randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase(),
    reseller_id: randomUUID(),
    source: 'payment',
    source_id: randomUUID(),
    subscriber_id: subscriberId,
    forfait_id: randomUUID(),
    offer: { duration_hours: 24, data_limit_mb: 0, cir_kbps: 256, mir_kbps: 1024, max_devices: 3 },
    created_at: new Date().toISOString(),
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  };
  await Access.put(code);
  const now = new Date().toISOString();
  const end = new Date(Date.now() + 86_400_000).toISOString();
  for (const mac of macs)
    expect(
      await bindMac(
        {
          reseller_id: code.reseller_id,
          mac,
          code: code.code,
          nas_id: 'access_x',
          bound_at: now,
          expires_at: end,
        },
        code,
      ),
    ).toBe('bound');
  return code;
}

describe("a subscriber's remembered devices", () => {
  it('are listed for the subscriber only, and forgotten by them one at a time', async () => {
    const subscriberId = randomUUID();
    const code = await boundCode(subscriberId, ['02:00:00:00:01:01', '02:00:00:00:01:02']);
    const me = { sub: subscriberId, ref: 'SUB-1', role: 'subscriber' as const, exp };
    expect((await myDevices(subscriberId)).items.map((d) => d.mac).sort()).toEqual([
      '02:00:00:00:01:01',
      '02:00:00:00:01:02',
    ]);
    expect(await myDevices(randomUUID())).toEqual({ items: [] });

    await expect(
      forgetMyDevice({ ...me, sub: randomUUID() }, code.code, '02:00:00:00:01:01', Date.now()),
    ).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    expect(await forgetMyDevice(me, code.code, '02-00-00-00-01-01', Date.now())).toEqual({ forgotten: true });
    await expect(forgetMyDevice(me, code.code, '02:00:00:00:01:01', Date.now())).rejects.toMatchObject({
      code: 'ERR_NOT_FOUND',
    });
    expect((await myDevices(subscriberId)).items.map((d) => d.mac)).toEqual(['02:00:00:00:01:02']);
  });

  it('are forgotten with the account: removing it deletes every binding of its codes', async () => {
    const subscriberId = randomUUID();
    const code = await boundCode(subscriberId, ['02:00:00:00:02:01', '02:00:00:00:02:02']);
    expect(await bindingsOfCode(code.code)).toHaveLength(2);

    expect(await revokeCodesOfAccount(subscriberId, Date.now())).toEqual({ codes: 1, disconnects: 0 });
    expect(await bindingsOfCode(code.code)).toEqual([]);
    expect((await Access.get({ code: code.code }))?.bound_devices).toBe(0);
  });
});
