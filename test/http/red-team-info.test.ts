import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

// The "info" findings of issue 31 that the API fixes, through the local server.

const server = useLocalServer();
const forfait = SEED_FORFAITS[0] as { id: string };

describe('info findings of issue 31', () => {
  it('a POST route that takes no body refuses a broken or non-empty JSON body with 400, and does nothing', async () => {
    const token = await login(server.url(), newMsisdn());
    const logout = (body: string) =>
      call(server.url(), 'POST', '/api/v1/auth/logout', {
        token,
        body,
        headers: { 'content-type': 'application/json' },
      });
    for (const body of ['{', '{"all_devices":true}', '[]', 'null'])
      expect(await logout(body), body).toMatchObject({
        status: 400,
        body: { error: { code: 'ERR_VALIDATION' } },
      });
    // Nothing was done: the token still stands. No body, or `{}`, is no body.
    expect((await call(server.url(), 'GET', '/api/v1/auth/session', { token })).status).toBe(200);
    expect((await logout('{}')).status).toBe(204);
  });

  it('redeems a voucher typed with dashes and spaces, as the router and the portal take it', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Chez Awa' });
    const gen = await call<{ items: { code: string }[] }>(server.url(), 'POST', '/api/v1/vouchers/generate', {
      token: await tokenFor('admin'),
      body: { forfait_id: forfait.id, reseller_id: resellerId, n: 1 },
    });
    const code = gen.body.items[0]?.code as string;
    const typed = `${code.slice(0, 4)}-${code.slice(4, 8)} ${code.slice(8)}`.toLowerCase();
    const redeemed = await call(server.url(), 'POST', '/api/v1/vouchers/redeem', {
      token: await tokenFor('subscriber'),
      body: { code: typed },
    });
    expect(redeemed).toMatchObject({ status: 200, body: { source: 'voucher' } });
  });
});
