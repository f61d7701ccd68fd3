import { describe, expect, it } from 'vitest';
import { requestOtp, verifyOtp } from '../../functions/auth/service.js';
import { verifySession } from '../../functions/auth/tokens.js';
import { AppError } from '../../functions/core/errors.js';
import { getAccount } from '../../functions/store/accounts.js';
import { addReseller, adminCli } from '../support/admin-cli.js';
import { useTestTable } from '../support/db.js';
import { lastOtp, newMsisdn } from '../support/http.js';

const table = useTestTable();
const admin = adminCli(table.name);

/** A session token of the number, through the login flow. */
async function loginToken(msisdn: string): Promise<string> {
  const { otp_token } = await requestOtp(msisdn);
  return (await verifyOtp(msisdn, lastOtp(msisdn), otp_token)).session_token;
}

const status = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );

describe('npm run admin -- accounts add, run again', () => {
  it('a second `accounts add` of a reseller does not cut it from its reseller_id (VLAN, sites, money)', async () => {
    const msisdn = newMsisdn();
    const first = await admin(...addReseller(msisdn, '--name', 'Chez Awa'));
    expect(first.code).toBe(0);
    const { reseller_id } = JSON.parse(first.stdout) as { reseller_id: string };

    const again = await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'reseller');
    expect(again.code).toBe(0);
    expect(await getAccount(msisdn)).toMatchObject({ role: 'reseller', reseller_id, name: 'Chez Awa' });

    const renamed = await admin(...addReseller(msisdn, '--name', 'Awa Net'));
    expect(renamed.code).toBe(0);
    expect(await getAccount(msisdn)).toMatchObject({ reseller_id, name: 'Awa Net' });
  });

  it('`accounts add` with another --reseller-id cannot move a reseller to someone else’s money', async () => {
    const msisdn = newMsisdn();
    const first = await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'reseller');
    const { reseller_id } = JSON.parse(first.stdout) as { reseller_id: string };
    const moved = await admin(
      ...addReseller(msisdn, '--reseller-id', '0b8f6a3e-3c1d-4c55-9f1a-2f4b7d9e8a11'),
    );
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain(`already reseller ${reseller_id}`);
    expect((await getAccount(msisdn))?.reseller_id).toBe(reseller_id);
  });

  it('`accounts add` does not silently turn an admin into a reseller, nor back: --change-role says so', async () => {
    const msisdn = newMsisdn();
    expect((await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'admin')).code).toBe(0);
    const refused = await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'reseller');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--change-role');
    expect((await getAccount(msisdn))?.role).toBe('admin');

    const changed = await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'reseller', '--change-role');
    expect(changed.code).toBe(0);
    expect((await getAccount(msisdn))?.role).toBe('reseller');
  });
});

describe('npm run admin -- accounts remove | revoke', () => {
  it('`accounts revoke` shuts out whoever holds a lost admin phone’s token', async () => {
    const msisdn = newMsisdn();
    await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'admin');
    const token = await loginToken(msisdn);
    expect(await status(verifySession(token))).toBe('ok');

    const revoked = await admin('accounts', 'revoke', '--msisdn', msisdn);
    expect(revoked.code).toBe(0);
    expect(await status(verifySession(token))).toBe('ERR_UNAUTHENTICATED');
    // The admin itself logs in again.
    expect((await verifySession(await loginToken(msisdn))).role).toBe('admin');
  });

  it('`accounts remove` retires an operator number: its tokens die and it logs in only as a subscriber', async () => {
    const msisdn = newMsisdn();
    const added = await admin('accounts', 'add', '--msisdn', msisdn, '--role', 'reseller');
    const { id, reseller_id } = JSON.parse(added.stdout) as { id: string; reseller_id: string };
    const token = await loginToken(msisdn);

    const removed = await admin('accounts', 'remove', '--msisdn', msisdn);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(reseller_id);
    expect(await status(verifySession(token))).toBe('ERR_UNAUTHENTICATED');
    // Same account (its history stays attached), no operator role, off the operator list.
    expect(await getAccount(msisdn)).toMatchObject({ id, role: 'subscriber' });
    expect((await getAccount(msisdn))?.reseller_id).toBeUndefined();
    expect((await admin('accounts', 'list')).stdout).not.toContain(msisdn);
    expect((await verifySession(await loginToken(msisdn))).role).toBe('subscriber');
  });

  it('`accounts remove` and `revoke` of a number that is not an operator fail and change nothing', async () => {
    const nobody = newMsisdn();
    expect((await admin('accounts', 'remove', '--msisdn', nobody)).code).toBe(1);
    expect((await admin('accounts', 'revoke', '--msisdn', nobody)).code).toBe(1);
    expect(await getAccount(nobody)).toBeUndefined();
  });
});
