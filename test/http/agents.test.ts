import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { gsm7Segments, toGsm7 } from '../../functions/core/gsm7.js';
import { getAccessCode } from '../../functions/store/access-codes.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { adminCli } from '../support/admin-cli.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
const admin = adminCli(() => tableName());
const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number; name: string };
const today = () => clock.iso().slice(0, 10);
const month = () => clock.iso().slice(0, 7);

const api = (method: string, path: string, token: string, body?: unknown) =>
  call(server.url(), method, path, { token, ...(body !== undefined ? { body } : {}) });

interface AgentView {
  id: string;
  float_fcfa: number;
  stock: Record<string, number>;
  sold_fcfa: number;
  commission_fcfa: number;
  owed_fcfa: number;
  sales_count: number;
  cash_received_fcfa: number;
}

/** A reseller with a hotspot, and its token. */
async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId, 'access_agents');
  return { resellerId, nasId, token: await tokenFor('reseller', { resellerId }) };
}

/** An agent added by its reseller through the API, logged in by SMS code. */
async function givenAgent(reseller: { resellerId: string; token: string }, commissionBp = 1000) {
  const msisdn = newMsisdn();
  const created = await api('POST', '/api/v1/agents', reseller.token, {
    msisdn,
    name: 'Boutique Kone',
    commission_bp: commissionBp,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const agent = created.body as unknown as AgentView;
  // The number's holder accepts the invitation it was texted, logged in with its SMS code.
  const accepted = await api('POST', `/api/v1/agents/${agent.id}/accept`, await login(server.url(), msisdn));
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return { id: agent.id, msisdn, token: (accepted.body as { session_token: string }).session_token };
}

describe('an agent of a reseller', () => {
  it('logs in with the SMS code and holds an agent token for its reseller', async () => {
    const reseller = await givenReseller();
    const agent = await givenAgent(reseller);

    const session = await api('GET', '/api/v1/auth/session', agent.token);
    expect(session.status).toBe(200);
    // The header's words: the agent's name, its number as written in its reseller's country.
    expect(session.body).toMatchObject({ role: 'agent', name: 'Boutique Kone' });
    const { phone } = session.body as { phone: string };
    expect(phone).toMatch(/^07 /);
    expect(phone.replace(/ /g, '')).toBe(agent.msisdn.slice(4));
    const resellers = await api('GET', '/api/v1/auth/session', reseller.token);
    expect(resellers.body).toMatchObject({ role: 'reseller', name: 'Chez Awa' });
    const mine = await api('GET', `/api/v1/agents/${agent.id}`, agent.token);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      agent: { id: agent.id, reseller_id: reseller.resellerId, commission_bp: 1000 },
    });
  });

  it("is refused on every reseller and admin route, and sees nothing of its reseller's other agents", async () => {
    const reseller = await givenReseller();
    const agent = await givenAgent(reseller);
    const other = await givenAgent(reseller);

    expect((await api('GET', `/api/v1/agents?reseller_id=${reseller.resellerId}`, agent.token)).status).toBe(
      403,
    );
    expect(
      (
        await api(
          'GET',
          `/api/v1/billing/summary?reseller_id=${reseller.resellerId}&month=${month()}`,
          agent.token,
        )
      ).status,
    ).toBe(403);
    expect(
      (await api('POST', `/api/v1/agents/${agent.id}/allot`, agent.token, { float_fcfa: 1000 })).status,
    ).toBe(403);
    expect(
      (await api('POST', `/api/v1/agents/${agent.id}/cash`, agent.token, { amount_fcfa: 1 })).status,
    ).toBe(403);
    expect(
      (
        await api('POST', '/api/v1/vouchers/generate', agent.token, {
          forfait_id: forfait.id,
          reseller_id: reseller.resellerId,
          n: 1,
        })
      ).status,
    ).toBe(403);
    expect((await api('GET', `/api/v1/agents/${other.id}`, agent.token)).status).toBe(404);
    expect(
      (await api('GET', `/api/v1/agents/${other.id}/sales?from=${today()}&to=${today()}`, agent.token))
        .status,
    ).toBe(404);
    expect(
      (await api('POST', `/api/v1/agents/${other.id}/sales`, agent.token, { forfait_id: forfait.id })).status,
    ).toBe(404);
  });

  it("sells from its float, each sale counted in its reseller's revenue with its commission, and texts the code", async () => {
    const reseller = await givenReseller();
    const agent = await givenAgent(reseller, 1000);
    const topUp = await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      float_fcfa: 2 * forfait.price_fcfa,
    });
    expect(topUp.body).toMatchObject({ float_fcfa: 2 * forfait.price_fcfa });
    const buyer = newMsisdn();

    const shown = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: forfait.id,
      nas_id: reseller.nasId,
    });
    const texted = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: forfait.id,
      send_to: buyer,
    });
    const refused = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: forfait.id,
    });

    const commission = Math.round(forfait.price_fcfa / 10);
    expect(shown.status).toBe(201);
    expect(shown.body).toMatchObject({
      sale: {
        forfait_id: forfait.id,
        price_fcfa: forfait.price_fcfa,
        commission_fcfa: commission,
        paid_from: 'float',
        nas_id: reseller.nasId,
      },
      float_fcfa: forfait.price_fcfa,
    });
    expect(texted.status).toBe(201);
    expect(texted.body).toMatchObject({ sms: { segments: 1, sent: true }, float_fcfa: 0 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'ERR_AGENT_FLOAT_EXHAUSTED' } });
    const code = (texted.body as { sale: { code: string } }).sale.code;
    const sms = readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { to: string; message: string })
      .filter((m) => m.to === buyer);
    expect(sms).toHaveLength(1);
    // The code grouped by four, as the cards print it.
    expect(sms[0]?.message.replace(/ /g, '')).toContain(code);
    // GSM-7 only (its é included), one segment.
    expect(toGsm7(sms[0]?.message ?? '')).toBe(sms[0]?.message);
    expect(gsm7Segments(sms[0]?.message ?? '')).toBe(1);
    // The sale keeps the buyer's number masked only: the code is texted, the books need no number.
    const stored = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sale)',
        ExpressionAttributeValues: { ':pk': `AGENT#${agent.id}`, ':sale': 'SALE#' },
      }),
    );
    const soldTo = (stored.Items ?? []).map((i) => i.buyer_msisdn).filter(Boolean);
    expect(soldTo).toEqual([`${buyer.slice(0, 4)}${'*'.repeat(buyer.length - 8)}${buyer.slice(-4)}`]);
    // The code is a real access code of the reseller, its clock not started until first login.
    expect(await getAccessCode(code)).toMatchObject({
      reseller_id: reseller.resellerId,
      source: 'agent',
      source_id: agent.id,
    });

    const summary = await api(
      'GET',
      `/api/v1/billing/summary?reseller_id=${reseller.resellerId}&month=${month()}`,
      reseller.token,
    );
    // Cash: no mobile-money provider took a fee on it.
    const operator = Math.round(2 * forfait.price_fcfa * 0.3);
    expect(summary.body).toMatchObject({
      total_fcfa: 2 * forfait.price_fcfa,
      split: {
        provider_fee_fcfa: 0,
        operator_fcfa: operator,
        reseller_fcfa: 2 * forfait.price_fcfa - operator,
      },
      by_channel: { cash: 2 * forfait.price_fcfa, mobile_money: 0, voucher: 0 },
      agents: { sold_fcfa: 2 * forfait.price_fcfa, commission_fcfa: 2 * commission },
    });
    const sales = await api(
      'GET',
      `/api/v1/billing/sales?reseller_id=${reseller.resellerId}&from=${today()}&to=${today()}`,
      reseller.token,
    );
    expect(sales.body).toMatchObject({ days: [{ total_fcfa: 2 * forfait.price_fcfa, sales_count: 2 }] });

    const statement = await api('GET', `/api/v1/agents/${agent.id}`, agent.token);
    const due = 2 * (forfait.price_fcfa - commission);
    expect(statement.body).toMatchObject({
      agent: {
        sold_fcfa: 2 * forfait.price_fcfa,
        commission_fcfa: 2 * commission,
        owed_fcfa: due,
        sales_count: 2,
      },
      today: {
        sold_fcfa: 2 * forfait.price_fcfa,
        commission_fcfa: 2 * commission,
        due_fcfa: due,
        sales_count: 2,
      },
      month: { sold_fcfa: 2 * forfait.price_fcfa, due_fcfa: due },
    });

    const over = await api('POST', `/api/v1/agents/${agent.id}/cash`, reseller.token, {
      amount_fcfa: due + 1,
    });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ error: { code: 'ERR_AGENT_CASH_OVER_OWED' } });
    const cash = await api('POST', `/api/v1/agents/${agent.id}/cash`, reseller.token, { amount_fcfa: due });
    expect(cash.body).toMatchObject({ owed_fcfa: 0, cash_received_fcfa: due });

    const csv = await fetch(
      `${server.url()}/api/v1/agents/${agent.id}/sales/export?from=${today()}&to=${today()}`,
      {
        headers: { authorization: `Bearer ${reseller.token}` },
      },
    );
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'Date;Code;Forfait;Prix (FCFA);Commission (FCFA);À reverser (FCFA);Payé par;Hotspot;Agent',
    );
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).toContain(code);
    // Names, not ids: the agent's, and a day-first local date.
    expect(lines[1]).toMatch(
      /^\d\d\/\d\d\/\d{4} \d\d:\d\d;[A-Z0-9]+;[^;]+;\d+;\d+;\d+;crédit;[^;]*;Boutique Kone$/,
    );
  });

  it('sells from a stock of codes of a forfait, then from its float once the stock is out', async () => {
    const reseller = await givenReseller();
    const agent = await givenAgent(reseller, 500);
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      forfait_id: forfait.id,
      count: 1,
    });

    const fromStock = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: forfait.id,
    });
    const noneLeft = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: forfait.id,
    });
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, { float_fcfa: forfait.price_fcfa });
    const fromFloat = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
      forfait_id: forfait.id,
    });

    expect(fromStock.body).toMatchObject({ sale: { paid_from: 'stock' }, stock_left: 0 });
    expect(noneLeft.status).toBe(409);
    expect(noneLeft.body).toMatchObject({ error: { code: 'ERR_AGENT_STOCK_EXHAUSTED' } });
    expect(fromFloat.body).toMatchObject({ sale: { paid_from: 'float' }, float_fcfa: 0 });
  });

  it('never sells beyond its float: 50 sales at once against a float of exactly 10 give exactly 10', async () => {
    const reseller = await givenReseller();
    const agent = await givenAgent(reseller, 1000);
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      float_fcfa: 10 * forfait.price_fcfa,
    });

    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, { forfait_id: forfait.id }),
      ),
    );

    const sold = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(sold).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect(r.body).toMatchObject({ error: { code: 'ERR_AGENT_FLOAT_EXHAUSTED' } });
    expect(new Set(sold.map((r) => (r.body as { sale: { code: string } }).sale.code)).size).toBe(10);
    const statement = await api('GET', `/api/v1/agents/${agent.id}`, reseller.token);
    const commission = Math.round(forfait.price_fcfa / 10);
    expect(statement.body).toMatchObject({
      agent: {
        float_fcfa: 0,
        sales_count: 10,
        sold_fcfa: 10 * forfait.price_fcfa,
        owed_fcfa: 10 * (forfait.price_fcfa - commission),
      },
      today: { sales_count: 10, sold_fcfa: 10 * forfait.price_fcfa },
    });
    const summary = await api(
      'GET',
      `/api/v1/billing/summary?reseller_id=${reseller.resellerId}&month=${month()}`,
      reseller.token,
    );
    expect(summary.body).toMatchObject({
      total_fcfa: 10 * forfait.price_fcfa,
      agents: { sold_fcfa: 10 * forfait.price_fcfa },
    });
    const listed = await api(
      'GET',
      `/api/v1/agents/${agent.id}/sales?from=${today()}&to=${today()}`,
      agent.token,
    );
    expect((listed.body as { items: unknown[] }).items).toHaveLength(10);
  });

  it('refuses a number that is already an operator, and a reseller naming another reseller', async () => {
    const reseller = await givenReseller();
    const other = await givenReseller();
    const msisdn = newMsisdn();
    expect(
      (
        await api('POST', '/api/v1/agents', reseller.token, {
          msisdn,
          commission_bp: 0,
          reseller_id: other.resellerId,
        })
      ).status,
    ).toBe(403);
    const invited = await api('POST', '/api/v1/agents', reseller.token, { msisdn, commission_bp: 0 });
    expect(invited.status).toBe(201);
    const id = (invited.body as { id: string }).id;
    expect((await api('POST', `/api/v1/agents/${id}/accept`, await login(server.url(), msisdn))).status).toBe(
      200,
    );
    // Now an agent: one number, one role.
    const again = await api('POST', '/api/v1/agents', other.token, { msisdn, commission_bp: 0 });
    expect(again.status).toBe(409);
    expect(
      (await api('POST', '/api/v1/agents', reseller.token, { msisdn: '+1234', commission_bp: 0 })).status,
    ).toBe(400);
  });
});

describe('red team of issue 31: agents', () => {
  it('L3: an invited number stays a subscriber (no agent token, remembers its phone) until its holder accepts; nobody else can accept for it', async () => {
    const reseller = await givenReseller();
    const msisdn = newMsisdn();
    const invited = await api('POST', '/api/v1/agents', reseller.token, { msisdn, commission_bp: 1000 });
    expect(invited).toMatchObject({ status: 201, body: { status: 'invited' } });
    const id = (invited.body as { id: string }).id;
    // The invitation is texted, with the link that accepts it.
    const sms = readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { to: string; message: string })
      .filter((m) => m.to === msisdn);
    expect(sms.at(-1)?.message).toContain(`/console#accept=${id}`);

    // Still a subscriber: its login gives a subscriber's token; the agent sells nothing yet.
    const subscriber = await login(server.url(), msisdn);
    expect((await api('GET', '/api/v1/auth/session', subscriber)).body).toMatchObject({ role: 'subscriber' });
    // Anyone else (another subscriber, the reseller, an admin) cannot accept it.
    for (const token of [await login(server.url(), newMsisdn()), reseller.token, await tokenFor('admin')])
      expect((await api('POST', `/api/v1/agents/${id}/accept`, token)).status).toBe(404);

    const accepted = await api('POST', `/api/v1/agents/${id}/accept`, subscriber);
    expect(accepted).toMatchObject({ status: 200, body: { agent: { id } } });
    const agentToken = (accepted.body as { session_token: string }).session_token;
    expect((await api('GET', '/api/v1/auth/session', agentToken)).body).toMatchObject({ role: 'agent' });
    // Accepted once: again is 404; the subscriber token it held is ended by the role change.
    expect((await api('POST', `/api/v1/agents/${id}/accept`, subscriber)).status).toBe(401);
  });

  it("L4: a removed reseller's agents can no longer sell", async () => {
    const reseller = await givenReseller();
    const resellerMsisdn = newMsisdn();
    await upsertOperator({ msisdn: resellerMsisdn, role: 'reseller', resellerId: reseller.resellerId });
    const agent = await givenAgent(reseller);
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      float_fcfa: 10 * forfait.price_fcfa,
    });
    const sale = () =>
      api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, { forfait_id: forfait.id });
    expect((await sale()).status).toBe(201);

    expect((await admin('accounts', 'remove', '--msisdn', resellerMsisdn)).code).toBe(0);
    expect(await sale()).toMatchObject({ status: 403, body: { error: { code: 'ERR_FORBIDDEN' } } });
  });

  it('L5: refuses agent names with markup or bidirectional controls, and hotspots of another reseller in PUT /agents/{id}', async () => {
    const reseller = await givenReseller();
    const other = await givenReseller();
    for (const name of ['<img src=x onerror=alert(1)>', 'Kone\u202eenok', 'Bou\u2066tique', 'A\u0007B']) {
      const created = await api('POST', '/api/v1/agents', reseller.token, {
        msisdn: newMsisdn(),
        name,
        commission_bp: 1000,
      });
      expect(created, name).toMatchObject({ status: 400, body: { error: { code: 'ERR_VALIDATION' } } });
    }
    const agent = await givenAgent(reseller);
    expect(
      (await api('PUT', `/api/v1/agents/${agent.id}`, reseller.token, { name: 'Boutique <b>Kone</b>' }))
        .status,
    ).toBe(400);
    const foreign = await api('PUT', `/api/v1/agents/${agent.id}`, reseller.token, {
      nas_ids: [other.nasId],
    });
    expect(foreign).toMatchObject({ status: 400, body: { error: { code: 'ERR_VALIDATION' } } });
    expect(
      (await api('PUT', `/api/v1/agents/${agent.id}`, reseller.token, { nas_ids: [reseller.nasId] })).status,
    ).toBe(200);
  });
});

describe('phone numbers typed as people write them', () => {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join('');

  it("takes an agent's number in the national form of its reseller's country, stored international", async () => {
    const ci = await givenReseller();
    const local = `07 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`;
    const made = await api('POST', '/api/v1/agents', ci.token, { msisdn: local, commission_bp: 500 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((made.body as { msisdn: string }).msisdn).toBe(`+225${local.replace(/\s/g, '')}`);

    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Chez Fatou', country: 'SN' });
    const sn = await tokenFor('reseller', { resellerId });
    const senegal = `77 ${digits(3)} ${digits(2)} ${digits(2)}`;
    const there = await api('POST', '/api/v1/agents', sn, { msisdn: senegal, commission_bp: 500 });
    expect(there.status, JSON.stringify(there.body)).toBe(201);
    expect((there.body as { msisdn: string }).msisdn).toBe(`+221${senegal.replace(/\s/g, '')}`);
    // International always works; 00 too.
    const intl = await api('POST', '/api/v1/agents', sn, {
      msisdn: `00225 07${digits(8)}`,
      commission_bp: 0,
    });
    expect(intl.status).toBe(201);
  });

  it("refuses a number that is not one of the reseller's country in national form (400, nothing made)", async () => {
    const ci = await givenReseller();
    const before = (await api('GET', '/api/v1/agents', ci.token)).body as { items: unknown[] };
    for (const typed of [`77 ${digits(3)} ${digits(2)} ${digits(2)}`, '12', 'zéro sept']) {
      const r = await api('POST', '/api/v1/agents', ci.token, { msisdn: typed, commission_bp: 0 });
      expect(r.status).toBe(400);
      expect((r.body as { error: { code: string } }).error.code).toBe('ERR_MSISDN_INVALID');
    }
    expect(((await api('GET', '/api/v1/agents', ci.token)).body as { items: unknown[] }).items).toEqual(
      before.items,
    );
  });
});
