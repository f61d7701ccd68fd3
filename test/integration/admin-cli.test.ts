import { describe, expect, it } from 'vitest';
import { requestOtp, verifyOtp } from '../../functions/auth/service.js';
import { verifySession } from '../../functions/auth/tokens.js';
import { getAccount } from '../../functions/store/accounts.js';
import { getReseller } from '../../functions/store/resellers.js';
import { addReseller, adminCli } from '../support/admin-cli.js';
import { useTestTable } from '../support/db.js';
import { lastOtp, newMsisdn } from '../support/http.js';

const table = useTestTable();
const admin = adminCli(table.name);

describe('npm run admin -- accounts', () => {
  it('registers a reseller with a generated id that ends up in its session token', async () => {
    const msisdn = newMsisdn();
    const added = await admin(...addReseller(msisdn, '--name', 'Chez Awa'));
    expect(added.code).toBe(0);
    const printed = JSON.parse(added.stdout) as { reseller_id: string; role: string };
    expect(printed.role).toBe('reseller');
    expect(printed.reseller_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await getReseller(printed.reseller_id))?.reseller_name).toBe('Chez Awa');

    await requestOtp(msisdn);
    const claims = await verifySession((await verifyOtp(msisdn, lastOtp(msisdn))).session_token);
    expect(claims).toMatchObject({ role: 'reseller', resellerId: printed.reseller_id });
  });

  it('registers an admin and lists operator accounts', async () => {
    const msisdn = newMsisdn();
    expect((await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'admin')).code).toBe(0);
    expect((await getAccount(msisdn))?.role).toBe('admin');
    const listed = await admin('accounts', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(msisdn);
  });

  it('refuses a bad role or reseller id with a usage error and writes nothing', async () => {
    const msisdn = newMsisdn();
    const badRole = await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'root');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain('--role must be admin or reseller');
    const badId = await admin(...addReseller(msisdn, '--reseller-id', 'x'));
    expect(badId.code).toBe(2);
    expect(await getAccount(msisdn)).toBeUndefined();
  });
});
