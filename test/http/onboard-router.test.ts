import { describe, expect, it } from 'vitest';
import { call, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

// An operator onboards a reseller with its first router in one request: account, VLAN, NAS id,
// first site and the router registered for that NAS id, its credentials shown this once.

const server = useLocalServer();

interface Onboarded {
  reseller_id: string;
  nas_id: string;
  router?: {
    router: { router_id: string; nas_ids: string[]; transport: string; status: string };
    credentials: { transport: string; secret?: string; source_ip?: string; certificate_pem?: string };
  };
}

const onboard = async (body: Record<string, unknown>) =>
  call<Onboarded & { error?: { code: string } }>(server.url(), 'POST', '/api/v1/resellers', {
    token: await tokenFor('admin'),
    body: { msisdn: newMsisdn(), name: `Chez Test ${Date.now()}`, country: 'CI', ...body },
  });

describe('onboarding a reseller with its first router', () => {
  it('registers a UDP router for the new NAS id and shows its secret once', async () => {
    const res = await onboard({
      first_router: { name: 'Routeur 1', transport: 'udp', source_ip: '198.51.100.23' },
    });
    expect(res.status).toBe(201);
    const { router } = res.body;
    expect(router?.router).toMatchObject({ nas_ids: [res.body.nas_id], transport: 'udp', status: 'active' });
    expect(router?.credentials).toMatchObject({ transport: 'udp', source_ip: '198.51.100.23' });
    expect(router?.credentials.secret).toMatch(/^.{16,}$/);

    const owner = await tokenFor('reseller', { resellerId: res.body.reseller_id });
    const listed = await call<{ items: Record<string, unknown>[] }>(
      server.url(),
      'GET',
      `/api/v1/routers?reseller_id=${res.body.reseller_id}`,
      { token: owner },
    );
    expect(listed.body.items.map((r) => r.router_id)).toEqual([router?.router.router_id]);
    expect(JSON.stringify(listed.body)).not.toContain(router?.credentials.secret as string);
  });

  it('issues a RadSec router its certificate', async () => {
    const res = await onboard({ first_router: { name: 'Routeur NAT', transport: 'radsec' } });
    expect(res.status).toBe(201);
    expect(res.body.router?.credentials.certificate_pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('refuses a UDP router without a usable address before creating anything', async () => {
    const msisdn = newMsisdn();
    const res = await call<{ error: { code: string } }>(server.url(), 'POST', '/api/v1/resellers', {
      token: await tokenFor('admin'),
      body: {
        msisdn,
        name: 'Chez Rien',
        country: 'CI',
        first_router: { name: 'R', transport: 'udp', source_ip: '224.0.0.1' },
      },
    });
    expect([res.status, res.body.error.code]).toEqual([400, 'ERR_VALIDATION']);
    // The number is no operator: onboarding it again (correctly) works.
    const again = await call(server.url(), 'POST', '/api/v1/resellers', {
      token: await tokenFor('admin'),
      body: { msisdn, name: 'Chez Rien', country: 'CI' },
    });
    expect(again.status).toBe(201);
  });

  it("refuses a number outside the served countries' plans (checked by the lazily loaded plans)", async () => {
    // A French mobile: E.164 in shape, not a served country's number.
    for (const msisdn of ['+33612345678', '+2250']) {
      const res = await onboard({ msisdn });
      expect([res.status, res.body.error?.code]).toEqual([400, 'ERR_MSISDN_INVALID']);
    }
  });
});

describe('onboarding a reseller whose number is written the national way', () => {
  it("reads it in the reseller's country and stores it international", async () => {
    const digits = String(Date.now() % 10_000_000).padStart(7, '0');
    const res = await call<{ msisdn: string }>(server.url(), 'POST', '/api/v1/resellers', {
      token: await tokenFor('admin'),
      body: {
        msisdn: `77 ${digits.slice(0, 3)} ${digits.slice(3, 5)} ${digits.slice(5)}`,
        name: `Chez Fatou ${digits}`,
        country: 'SN',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.msisdn).toBe(`+22177${digits}`);
    // The same national number in Côte d'Ivoire is no number there.
    const wrong = await call<{ error: { code: string; details?: { path: string }[] } }>(
      server.url(),
      'POST',
      '/api/v1/resellers',
      {
        token: await tokenFor('admin'),
        body: {
          msisdn: `77 ${digits.slice(0, 3)} ${digits.slice(3)}`,
          name: `Chez Faux ${digits}`,
          country: 'CI',
        },
      },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('ERR_MSISDN_INVALID');
    expect(wrong.body.error.details?.[0]?.path).toBe('body.msisdn');
  });
});
