import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

/** PPPoE plans, subscribers and renewals through the real local server and the sandbox gateway. */
const server = useLocalServer();
const api = (method: string, path: string, token?: string, body?: unknown) =>
  call(server.url(), method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
const code = (r: { body: unknown }) => (r.body as { error?: { code: string } }).error?.code;
const BASE = '/api/v1/resellers/me/pppoe';

type Subscriber = { id: string; username: string; password: string; state: string; periods: number };

async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId, 'access_pppoe');
  return { resellerId, nasId, token: await tokenFor('reseller', { resellerId }) };
}

const plan = {
  name: 'Maison 10M',
  price_fcfa: 15000,
  period: 'month',
  down_kbps: 10240,
  up_kbps: 2048,
  grace_days: 2,
};

describe('PPPoE through the API', () => {
  it('makes a plan and a subscriber, refuses bad input with a stable code and changes nothing', async () => {
    const r = await givenReseller();
    const made = await api('POST', `${BASE}/plans`, r.token, {
      ...plan,
      fair_use: { gb: 100, down_kbps: 2048, up_kbps: 512 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const planId = (made.body as { id: string }).id;

    const faster = await api('POST', `${BASE}/plans`, r.token, {
      ...plan,
      fair_use: { gb: 100, down_kbps: 20480, up_kbps: 512 },
    });
    expect([faster.status, code(faster)]).toEqual([400, 'ERR_VALIDATION']);
    const badNumber = await api('POST', `${BASE}/subscribers`, r.token, {
      ...{ plan_id: planId, msisdn: '12345678', name: 'Awa', nas_ids: [r.nasId] },
    });
    expect([badNumber.status, code(badNumber)]).toEqual([400, 'ERR_MSISDN_INVALID']);
    const spaced = await api('POST', `${BASE}/subscribers`, r.token, {
      ...{ plan_id: planId, msisdn: '0712345678', name: 'Awa', nas_ids: [r.nasId], password: 'with space' },
    });
    expect([spaced.status, code(spaced)]).toEqual([400, 'ERR_VALIDATION']);
    const plans = await api('GET', `${BASE}/plans`, r.token);
    expect((plans.body as { items: unknown[] }).items).toHaveLength(1);
    const none = await api('GET', `${BASE}/subscribers`, r.token);
    expect(none.body).toEqual({ items: [] });

    const created = await api('POST', `${BASE}/subscribers`, r.token, {
      ...{ plan_id: planId, msisdn: '07 12 34 56 78', name: 'Awa Koné', nas_ids: [r.nasId] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ msisdn: '+2250712345678', state: 'new', periods: 0 });

    const other = await givenReseller();
    const id = (created.body as Subscriber).id;
    const peek = await api('GET', `${BASE}/subscribers/${id}`, other.token);
    expect([peek.status, code(peek)]).toEqual([404, 'ERR_NOT_FOUND']);
  });

  it('renews in cash once per period, then by mobile money through the sandbox page', async () => {
    const r = await givenReseller();
    const planId = ((await api('POST', `${BASE}/plans`, r.token, plan)).body as { id: string }).id;
    const msisdn = newMsisdn();
    const sub = (
      await api('POST', `${BASE}/subscribers`, r.token, {
        plan_id: planId,
        msisdn,
        name: 'Ali',
        nas_ids: [r.nasId],
      })
    ).body as Subscriber;

    const cash = await api('POST', `${BASE}/subscribers/${sub.id}/renewals`, r.token, { period: 1 });
    expect(cash.status, JSON.stringify(cash.body)).toBe(201);
    expect(cash.body).toMatchObject({ subscriber_id: sub.id, period: 1 });
    const again = await api('POST', `${BASE}/subscribers/${sub.id}/renewals`, r.token, { period: 1 });
    expect([again.status, code(again)]).toEqual([409, 'ERR_PERIOD_SOLD']);

    // The subscriber pays the next period from home, signed in with its own number.
    const me = await login(server.url(), msisdn);
    const stranger = await login(server.url(), newMsisdn());
    const refused = await api('POST', '/api/v1/pppoe/payments', stranger, {
      subscriber_id: sub.id,
      provider: 'wave',
    });
    expect([refused.status, code(refused)]).toEqual([404, 'ERR_NOT_FOUND']);
    const opened = await api('POST', '/api/v1/pppoe/payments', me, {
      subscriber_id: sub.id,
      provider: 'wave',
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const { payment_url } = opened.body as { payment_url: string };
    const html = await (await fetch(payment_url)).text();
    expect(html).toContain('15000 FCFA');
    const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
    // No hotspot's portal to go back to: the sandbox shows what the webhook answered.
    const paid = await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' });
    expect(await paid.text()).toContain('Webhook answered <strong>200</strong>');

    const after = await api('GET', `${BASE}/subscribers/${sub.id}`, r.token);
    expect(after.body).toMatchObject({
      state: 'active',
      periods: 2,
      password: sub.password,
      renewals: [
        { period: 1, channel: 'cash', amount_fcfa: 15000 },
        { period: 2, channel: 'mobile_money', amount_fcfa: 15000 },
      ],
    });
  });
});
