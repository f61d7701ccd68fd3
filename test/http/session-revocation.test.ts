import { describe, expect, it } from 'vitest';
import { removeOperator, revokeTokens, upsertOperator } from '../../functions/store/accounts.js';
import { call, login, loginAs, newMsisdn, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const api = <T = Record<string, unknown>>(
  method: string,
  path: string,
  options?: Parameters<typeof call>[3],
) => call<T>(server.url(), method, path, options);

const ADMIN_ROUTE = '/api/v1/network/gateway/rules';

describe('ending session tokens before they expire', () => {
  it('an admin who logs out leaves a token that nobody can use any more', async () => {
    const { token } = await loginAs(server.url(), 'admin');
    expect((await api('GET', ADMIN_ROUTE, { token })).status).toBe(200);

    const out = await api('POST', '/api/v1/auth/logout', { token });
    expect(out.status).toBe(204);

    expect((await api('GET', ADMIN_ROUTE, { token })).status).toBe(401);
    expect((await api('GET', '/api/v1/auth/session', { token })).status).toBe(401);
    expect((await api('POST', '/api/v1/auth/logout', { token })).status).toBe(401);
  });

  it('logging out ends only the account’s tokens signed before it, not the next login', async () => {
    const { token, msisdn } = await loginAs(server.url(), 'admin');
    await api('POST', '/api/v1/auth/logout', { token });
    const again = await login(server.url(), msisdn);
    expect((await api('GET', ADMIN_ROUTE, { token: again })).status).toBe(200);
    expect((await api('GET', ADMIN_ROUTE, { token })).status).toBe(401);
  });

  it('the holder of a lost admin phone is shut out as soon as the operator revokes its tokens', async () => {
    const { token, msisdn } = await loginAs(server.url(), 'admin');
    expect((await api('GET', ADMIN_ROUTE, { token })).status).toBe(200);
    expect(await revokeTokens(msisdn)).toBe(true);
    expect((await api('GET', ADMIN_ROUTE, { token })).status).toBe(401);
  });

  it('a removed reseller’s token is refused at once, and its number logs in only as a subscriber', async () => {
    const { token, msisdn, resellerId } = await loginAs(server.url(), 'reseller');
    const own = `/api/v1/billing/summary?reseller_id=${resellerId}&month=2030-01`;
    expect((await api('GET', own, { token })).status).toBe(200);
    expect(await removeOperator(msisdn)).toMatchObject({ role: 'subscriber' });
    expect((await api('GET', own, { token })).status).toBe(401);

    const after = await login(server.url(), msisdn);
    const session = await api<{ role: string }>('GET', '/api/v1/auth/session', { token: after });
    expect(session.body.role).toBe('subscriber');
    expect((await api('GET', own, { token: after })).status).toBe(403);
  });

  it('an admin turned into a reseller can no longer use its admin token', async () => {
    const { token, msisdn } = await loginAs(server.url(), 'admin');
    await upsertOperator({ msisdn, role: 'reseller', resellerId: '3f1f5b0e-8b9a-4c1d-9e2f-1a2b3c4d5e6f' });
    expect((await api('GET', ADMIN_ROUTE, { token })).status).toBe(401);
  });

  it("L1: a subscriber's logout ends its token at once", async () => {
    const token = await login(server.url(), newMsisdn());
    expect((await api('GET', '/api/v1/access/mine', { token })).status).toBe(200);
    expect((await api('POST', '/api/v1/auth/logout', { token })).status).toBe(204);
    expect((await api('GET', '/api/v1/access/mine', { token })).status).toBe(401);
    expect((await api('GET', '/api/v1/auth/session', { token })).status).toBe(401);
  });

  it('logout needs a token', async () => {
    expect((await api('POST', '/api/v1/auth/logout')).status).toBe(401);
  });
});
