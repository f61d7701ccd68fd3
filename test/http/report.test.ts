import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { bookings } from '../../functions/billing/ledger.js';
import { clock } from '../../functions/core/clock.js';
import { transact } from '../../functions/store/entity.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

/**
 * Sales reports over any range of up to a year, from the ledger's day items: a calendar month
 * reads as its statement (`GET /billing/summary`), two months as the two statements added, by
 * hotspot, forfait, agent and channel, named; the CSV says the same, quoted as RFC 4180 says.
 */
const server = useLocalServer();
const [pass, week] = [SEED_FORFAITS[0], SEED_FORFAITS[3]] as {
  id: string;
  name: string;
  price_fcfa: number;
}[] as [{ id: string; name: string; price_fcfa: number }, { id: string; name: string; price_fcfa: number }];
const api = (path: string, token: string) => call(server.url(), 'GET', path, { token });

type Sale = Parameters<typeof bookings>[0];
/** A sale booked by the ledger at `at` (its month's and its day's items, one transaction), as every flow books one. */
const book = async (sale: Sale, at: string, sign: 1 | -1 = 1) => {
  const { monthBooks, dayBooks } = bookings(sale, at, sign);
  await transact({ monthBooks, dayBooks });
};

describe("a reseller's sales report", () => {
  it('reads a month as its statement and two months as the two added, by hotspot, forfait, agent and channel, named', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Rapports', country: 'CI' });
    const owner = await tokenFor('reseller', { resellerId });
    const nasId = await hotspotOf(resellerId, 'access_report');
    // An agent whose name a spreadsheet would take for a formula, with quotes and a comma.
    const agent = await call<{ id: string }>(server.url(), 'POST', '/api/v1/agents', {
      token: owner,
      body: { msisdn: newMsisdn(), name: '=Awa "la", Gare', commission_bp: 1000 },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const agentId = agent.body.id;
    const base = { resellerId, nasId };
    await book(
      { ...base, forfaitId: pass.id, channel: 'mobile_money', amountFcfa: 1000 },
      '2025-10-03T10:00:00Z',
    );
    await book(
      { resellerId, forfaitId: week.id, channel: 'voucher', amountFcfa: 1500 },
      '2025-10-31T23:59:00Z',
    );
    await book(
      {
        ...base,
        forfaitId: pass.id,
        channel: 'cash',
        amountFcfa: 500,
        agent: { id: agentId, commissionFcfa: 50 },
      },
      '2025-11-01T00:00:00Z',
    );
    await book(
      { ...base, forfaitId: week.id, channel: 'mobile_money', amountFcfa: 2000 },
      '2025-11-20T08:00:00Z',
    );
    // A refund, on its own day: every number negative.
    await book(
      { ...base, forfaitId: pass.id, channel: 'mobile_money', amountFcfa: 1000 },
      '2025-11-21T08:00:00Z',
      -1,
    );

    const statement = async (month: string) =>
      (await api(`/api/v1/billing/summary?reseller_id=${resellerId}&month=${month}`, owner)).body as {
        total_fcfa: number;
        by_channel: Record<string, number>;
        agents: { commission_fcfa: number };
      };
    const report = async (from: string, to: string) => {
      const r = await api(`/api/v1/billing/report?reseller_id=${resellerId}&from=${from}&to=${to}`, owner);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as unknown as {
        total_fcfa: number;
        sales_count: number;
        commission_fcfa: number;
        provider_fee_fcfa: number;
        by_channel: { key: string; total_fcfa: number }[];
        by_hotspot: { key: string; name: string; total_fcfa: number }[];
        by_forfait: { key: string; name: string; total_fcfa: number }[];
        by_agent: { key: string; name: string; total_fcfa: number }[];
        days: { day: string; total_fcfa: number; sales_count: number }[];
      };
    };
    const channels = (r: Awaited<ReturnType<typeof report>>) =>
      Object.fromEntries(r.by_channel.map((l) => [l.key, l.total_fcfa]));

    for (const month of ['2025-10', '2025-11']) {
      const last = month === '2025-10' ? '31' : '30';
      const [r, s] = [await report(`${month}-01`, `${month}-${last}`), await statement(month)];
      expect(r.total_fcfa).toBe(s.total_fcfa);
      expect(r.commission_fcfa).toBe(s.agents.commission_fcfa);
      for (const [channel, amount] of Object.entries(s.by_channel))
        expect(channels(r)[channel] ?? 0).toBe(amount);
    }
    const [oct, nov] = [await statement('2025-10'), await statement('2025-11')];
    const both = await report('2025-10-01', '2025-11-30');
    expect(both.total_fcfa).toBe(oct.total_fcfa + nov.total_fcfa);
    expect(both.total_fcfa).toBe(1000 + 1500 + 500 + 2000 - 1000);
    expect(both.sales_count).toBe(3);
    expect(both.commission_fcfa).toBe(50);
    expect(both.by_forfait).toEqual([
      { key: week.id, name: week.name, total_fcfa: 3500 },
      { key: pass.id, name: pass.name, total_fcfa: 500 },
    ]);
    expect(both.by_hotspot).toEqual([
      { key: nasId, name: `Chez Awa · ${nasId}`, total_fcfa: 2500 },
      { key: '-', name: '—', total_fcfa: 1500 },
    ]);
    expect(both.by_agent).toEqual([{ key: agentId, name: '=Awa "la", Gare', total_fcfa: 500 }]);
    expect(channels(both)).toEqual({ mobile_money: 2000, voucher: 1500, cash: 500 });
    expect(both.days.map((d) => d.day)).toEqual([
      '2025-10-03',
      '2025-10-31',
      '2025-11-01',
      '2025-11-20',
      '2025-11-21',
    ]);
    // Two days apart from the sales: nothing.
    expect((await report('2025-10-04', '2025-10-30')).total_fcfa).toBe(0);

    // The CSV: the same figures, a line each, quoted where a field needs it, a formula defused.
    const csv = await fetch(
      `${server.url()}/api/v1/billing/report/export?reseller_id=${resellerId}&from=2025-10-01&to=2025-11-30`,
      { headers: { authorization: `Bearer ${owner}` } },
    );
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const text = await csv.text();
    // As a French spreadsheet opens it: `;`, French words, names (no ids), days day first.
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('Rubrique;Nom;Nombre de ventes;Montant (FCFA)');
    expect(lines[1]).toMatch(/^Total;du 01\/10\/2025 au 30\/11\/2025;-?\d+;4000$/);
    expect(lines).toContain(`Agent;"'=Awa ""la"", Gare";;500`);
    expect(lines).toContain(`Forfait;${week.name};;3500`);
    expect(lines).toContain('Canal;Mobile money;;2000');
    expect(lines).toContain('Jour;21/11/2025;-1;-1000');
    expect(text).not.toContain(agentId);
    expect(text.endsWith('\r\n')).toBe(true);
    // The English console's: `,` and English words.
    const english = await fetch(
      `${server.url()}/api/v1/billing/report/export?reseller_id=${resellerId}&from=2025-10-01&to=2025-11-30&lang=en`,
      { headers: { authorization: `Bearer ${owner}` } },
    );
    const en = (await english.text()).split('\r\n');
    expect(en[0]).toBe('Section,Name,Sales,Amount (FCFA)');
    expect(en).toContain('Channel,Mobile money,,2000');
    expect(en).toContain('Day,2025-11-21,-1,-1000');
  });

  it('counts a sale made through the API today, as the statement does', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Rapports', country: 'CI' });
    const made = await call<{ items: { code: string }[] }>(
      server.url(),
      'POST',
      '/api/v1/vouchers/generate',
      {
        token: await tokenFor('admin'),
        body: { forfait_id: pass.id, reseller_id: resellerId, n: 2 },
      },
    );
    for (const { code } of made.body.items) {
      const redeemed = await call(server.url(), 'POST', '/api/v1/vouchers/redeem', {
        token: await login(server.url(), newMsisdn()),
        body: { code },
      });
      expect(redeemed.status).toBe(200);
    }
    const owner = await tokenFor('reseller', { resellerId });
    const today = clock.iso().slice(0, 10);
    const r = await api(`/api/v1/billing/report?reseller_id=${resellerId}&from=${today}&to=${today}`, owner);
    const s = await api(
      `/api/v1/billing/summary?reseller_id=${resellerId}&month=${today.slice(0, 7)}`,
      owner,
    );
    expect(r.body.total_fcfa).toBe(2 * pass.price_fcfa);
    expect(r.body.total_fcfa).toBe(s.body.total_fcfa);
  });

  it('takes a year and a day at most, in order; another reseller gets 403', async () => {
    const resellerId = randomUUID();
    const owner = await tokenFor('reseller', { resellerId });
    const path = `/api/v1/billing/report?reseller_id=${resellerId}`;
    // 2024 is a leap year: its 366 days are one report.
    expect((await api(`${path}&from=2024-01-01&to=2024-12-31`, owner)).status).toBe(200);
    for (const [from, to] of [
      ['2024-01-01', '2025-01-01'],
      ['2024-02-01', '2024-01-01'],
      ['2024-02-30', '2024-03-01'],
    ]) {
      const r = await api(`${path}&from=${from}&to=${to}`, owner);
      expect(r.status, `${from}..${to}`).toBe(400);
      expect((r.body as { error: { code: string } }).error.code).toBe('ERR_VALIDATION');
    }
    const other = await tokenFor('reseller', { resellerId: randomUUID() });
    expect((await api(`${path}&from=2024-01-01&to=2024-01-31`, other)).status).toBe(403);
    expect(
      (
        await api(
          `/api/v1/billing/report/export?reseller_id=${resellerId}&from=2024-01-01&to=2024-01-31`,
          other,
        )
      ).status,
    ).toBe(403);
  });
});
