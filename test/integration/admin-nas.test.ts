import { describe, expect, it } from 'vitest';
import { Access } from '../../functions/store/access-codes.js';
import { getNas, Nas } from '../../functions/store/nas.js';
import { adminCli } from '../support/admin-cli.js';
import { useTestTable } from '../support/db.js';
import { authorizeLogin } from '../support/region.js';

const table = useTestTable();
const admin = adminCli(table.name);

describe('npm run admin -- nas vendor', () => {
  it("switches a hotspot to CoovaChilli, and RADIUS then answers it with ChilliSpot's attributes", async () => {
    await Nas.put({
      nas_id: 'access_coova_test',
      reseller_id: 'r1',
      reseller_name: 'R',
      vlan_id: 10,
      kind: 'vlan',
    });
    await Access.put({
      code: 'COOVACODE2',
      reseller_id: 'r1',
      source: 'payment',
      source_id: 'p',
      forfait_id: 'f',
      offer: { duration_hours: 1, data_limit_mb: 100, cir_kbps: 128, mir_kbps: 512, max_devices: 1 },
      created_at: new Date().toISOString(),
      used_bytes: 0,
      devices: {},
      devices_version: 0,
    });
    const out = await admin('nas', 'vendor', '--nas-id', 'access_coova_test', '--vendor', 'coova');
    expect(out.code).toBe(0);
    expect((await getNas('access_coova_test'))?.vendor).toBe('coova');
    const decision = await authorizeLogin({ userName: 'COOVACODE2', nasId: 'access_coova_test' }, Date.now());
    expect(decision.accept && decision.reply['reply:ChilliSpot-Bandwidth-Max-Down']).toBe(512);
  });

  it('refuses an unknown vendor and an unknown hotspot, changing nothing', async () => {
    expect(
      (await admin('nas', 'vendor', '--nas-id', 'access_coova_test', '--vendor', 'cisco')).code,
    ).not.toBe(0);
    expect((await admin('nas', 'vendor', '--nas-id', 'access_nowhere', '--vendor', 'wispr')).code).not.toBe(
      0,
    );
  });
});
