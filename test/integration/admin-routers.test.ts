import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Nas } from '../../functions/store/nas.js';
import { getRouter } from '../../functions/store/routers.js';
import { adminCli } from '../support/admin-cli.js';
import { useTestTable } from '../support/db.js';

const table = useTestTable();
const admin = adminCli(table.name);
const RESELLER = '5b7c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4';

async function hotspot(nasId: string): Promise<void> {
  await Nas.put({ nas_id: nasId, reseller_id: RESELLER, reseller_name: 'R', vlan_id: 12, kind: 'vlan' });
}

describe('npm run admin -- routers', () => {
  it('registers a RadSec router, writes its certificate (verified by the CA written beside it) and a key only its owner reads, and revokes it', async () => {
    await hotspot('access_cli_radsec');
    const out = mkdtempSync(join(tmpdir(), 'router-'));
    const added = await admin(
      'routers',
      'add',
      '--reseller-id',
      RESELLER,
      '--nas-id',
      'access_cli_radsec',
      '--transport',
      'radsec',
      '--out',
      out,
    );
    expect(added.code, added.stderr).toBe(0);
    const router = JSON.parse(added.stdout) as { router_id: string; cert_serial: string };
    expect(router).toMatchObject({ nas_ids: ['access_cli_radsec'], transport: 'radsec', status: 'active' });
    const verified = execFileSync(
      'openssl',
      ['verify', '-CAfile', join(out, 'ca.pem'), join(out, 'router.pem')],
      {
        encoding: 'utf8',
      },
    );
    expect(verified).toContain(': OK');
    const subject = execFileSync(
      'openssl',
      ['x509', '-in', join(out, 'router.pem'), '-noout', '-subject', '-serial'],
      {
        encoding: 'utf8',
      },
    );
    expect(subject).toContain(`CN = ${router.router_id}`);
    expect(subject.toLowerCase()).toContain(`serial=${router.cert_serial}`);
    expect(statSync(join(out, 'router.key')).mode & 0o077).toBe(0);

    const revoked = await admin('routers', 'revoke', '--router-id', router.router_id);
    expect(revoked.code).toBe(0);
    expect((await getRouter(router.router_id))?.status).toBe('revoked');
  });

  it('refuses a NAS id of another reseller, registering nothing', async () => {
    await Nas.put({
      nas_id: 'access_cli_other',
      reseller_id: 'another',
      reseller_name: 'O',
      vlan_id: 13,
      kind: 'vlan',
    });
    const out = await admin(
      'routers',
      'add',
      '--reseller-id',
      RESELLER,
      '--nas-id',
      'access_cli_other',
      '--transport',
      'udp',
      '--source-ip',
      '198.51.100.7',
    );
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('access_cli_other');
    const listed = await admin('routers', 'list', '--reseller-id', RESELLER);
    expect(
      JSON.parse(listed.stdout).some((r: { source_ip?: string }) => r.source_ip === '198.51.100.7'),
    ).toBe(false);
  });
});

describe('npm run admin -- mikrotik script', () => {
  const base = ['--radius-host', '203.0.113.10', '--portal-url', 'https://api.hotspot.example'];

  it('registers a RadSec router for a RouterOS 7 hotspot and prints its one-paste script with the certificate in it', async () => {
    await hotspot('access_cli_v7');
    const out = await admin('mikrotik', 'script', '--nas-id', 'access_cli_v7', ...base);
    expect(out.code, out.stderr).toBe(0);
    const id = /Router (rtr_[a-z0-9]+) \(radsec\)/.exec(out.stderr)?.[1] as string;
    expect((await getRouter(id))?.nas_ids).toEqual(['access_cli_v7']);
    expect(out.stdout).toContain(`protocol=radsec certificate="${id}"`);
    expect(out.stdout).toContain('-----BEGIN PRIVATE KEY-----\\n');
    expect(out.stdout).toContain('code=114');
  });

  it('registers a UDP router for a RouterOS 6 hotspot, its own secret in the script, bound to its address', async () => {
    await hotspot('access_cli_v6');
    const out = await admin(
      'mikrotik',
      'script',
      '--nas-id',
      'access_cli_v6',
      '--routeros',
      '6',
      '--source-ip',
      '198.51.100.66',
      ...base,
    );
    expect(out.code, out.stderr).toBe(0);
    const secret = /secret="([A-Za-z0-9_-]{32})"/.exec(out.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(out.stdout).not.toContain('radsec');
    const again = await admin('mikrotik', 'script', '--nas-id', 'access_cli_v6', '--routeros', '6', ...base);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('--source-ip');
  });
});
