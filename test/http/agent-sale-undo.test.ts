import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { getAccessCode } from '../../functions/store/access-codes.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
afterEach(() => clock.reset());
const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
const month = () => clock.iso().slice(0, 7);

const api = (method: string, path: string, token: string, body?: unknown) =>
  call(server.url(), method, path, { token, ...(body !== undefined ? { body } : {}) });
const codeOf = (r: { body: unknown }) => (r.body as { error?: { code: string } }).error?.code;

interface Agent {
  float_fcfa: number;
  stock: Record<string, number>;
  sold_fcfa: number;
  owed_fcfa: number;
  sales_count: number;
}

async function given() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  const nasId = await hotspotOf(resellerId, 'access_saleundo');
  const reseller = { resellerId, nasId, token: await tokenFor('reseller', { resellerId }) };
  const msisdn = newMsisdn();
  const created = await api('POST', '/api/v1/agents', reseller.token, {
    msisdn,
    name: 'Kiosque Awa',
    commission_bp: 1000,
  });
  const id = (created.body as { id: string }).id;
  const accepted = await api('POST', `/api/v1/agents/${id}/accept`, await login(server.url(), msisdn));
  return { reseller, agent: { id, token: (accepted.body as { session_token: string }).session_token } };
}

const sell = async (agent: { id: string; token: string }, nasId: string) => {
  const sold = await api('POST', `/api/v1/agents/${agent.id}/sales`, agent.token, {
    forfait_id: forfait.id,
    nas_id: nasId,
  });
  expect(sold.status, JSON.stringify(sold.body)).toBe(201);
  return (sold.body as { sale: { code: string } }).sale.code;
};
const agentOf = async (token: string, id: string) =>
  ((await api('GET', `/api/v1/agents/${id}`, token)).body as { agent: Agent }).agent;
const revenue = async (r: { resellerId: string; token: string }) =>
  (await api('GET', `/api/v1/billing/summary?reseller_id=${r.resellerId}&month=${month()}`, r.token))
    .body as {
    total_fcfa: number;
    agents: { commission_fcfa: number };
  };

describe("an agent's sale undone within its minutes", () => {
  it('gives the float back, takes the sale out of the books, revokes the code, once', async () => {
    const { reseller, agent } = await given();
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      float_fcfa: 2 * forfait.price_fcfa,
    });
    const kept = await sell(agent, reseller.nasId);
    const code = await sell(agent, reseller.nasId);
    expect((await revenue(reseller)).total_fcfa).toBe(2 * forfait.price_fcfa);

    const undone = await api('POST', `/api/v1/agents/${agent.id}/sales/${code}/undo`, agent.token);
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body).toMatchObject({
      float_fcfa: forfait.price_fcfa,
      sale: { code, undone_at: expect.any(String) },
    });
    const after = await agentOf(reseller.token, agent.id);
    expect(after).toMatchObject({
      float_fcfa: forfait.price_fcfa,
      sold_fcfa: forfait.price_fcfa,
      sales_count: 1,
    });
    expect(after.owed_fcfa).toBe(forfait.price_fcfa - Math.round(forfait.price_fcfa / 10));
    expect((await getAccessCode(code))?.revoked_at).toEqual(expect.any(String));
    expect((await getAccessCode(kept))?.revoked_at).toBeUndefined();
    const books = await revenue(reseller);
    expect(books.total_fcfa).toBe(forfait.price_fcfa);
    expect(books.agents.commission_fcfa).toBe(Math.round(forfait.price_fcfa / 10));

    // Once: a second undo is too late, and nothing moves.
    const again = await api('POST', `/api/v1/agents/${agent.id}/sales/${code}/undo`, reseller.token);
    expect([again.status, codeOf(again)]).toEqual([409, 'ERR_UNDO_TOO_LATE']);
    expect((await agentOf(reseller.token, agent.id)).float_fcfa).toBe(forfait.price_fcfa);
    // The journal says what was undone, and whose sale it was.
    const admin = await tokenFor('admin');
    const day = await api('GET', `/api/v1/activity?day=${clock.iso().slice(0, 10)}&limit=100`, admin);
    const entry = (day.body as { items: { action: string; facts?: Record<string, unknown> }[] }).items.find(
      (e) => e.action === 'POST /api/v1/agents/{id}/sales/{code}/undo' && e.facts?.agent_name,
    );
    expect(entry?.facts).toMatchObject({ agent_name: 'Kiosque Awa', forfait_id: forfait.id });
  });

  it('five parallel undos of one sale give the float back once', async () => {
    const { reseller, agent } = await given();
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, { float_fcfa: forfait.price_fcfa });
    const code = await sell(agent, reseller.nasId);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        api('POST', `/api/v1/agents/${agent.id}/sales/${code}/undo`, agent.token),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status !== 200).map(codeOf)).toEqual(Array(4).fill('ERR_UNDO_TOO_LATE'));
    expect(await agentOf(reseller.token, agent.id)).toMatchObject({
      float_fcfa: forfait.price_fcfa,
      owed_fcfa: 0,
    });
    expect((await revenue(reseller)).total_fcfa).toBe(0);
  });

  it('gives a code of stock back to the stock', async () => {
    const { reseller, agent } = await given();
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      forfait_id: forfait.id,
      count: 1,
    });
    const code = await sell(agent, reseller.nasId);
    const undone = await api('POST', `/api/v1/agents/${agent.id}/sales/${code}/undo`, agent.token);
    expect(undone.body).toMatchObject({ stock_left: 1, sale: { paid_from: 'stock' } });
    expect((await agentOf(reseller.token, agent.id)).stock[forfait.id]).toBe(1);
  });

  it('is refused once the code was used or its minutes are past, and for an unknown code', async () => {
    const { reseller, agent } = await given();
    await api('POST', `/api/v1/agents/${agent.id}/allot`, reseller.token, {
      float_fcfa: 2 * forfait.price_fcfa,
    });
    const used = await sell(agent, reseller.nasId);
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `CODE#${used}`, sk: 'CODE' },
        UpdateExpression: 'SET started_at = :now',
        ExpressionAttributeValues: { ':now': clock.iso() },
      }),
    );
    const inUse = await api('POST', `/api/v1/agents/${agent.id}/sales/${used}/undo`, agent.token);
    expect([inUse.status, codeOf(inUse)]).toEqual([409, 'ERR_CODE_IN_USE']);

    const old = await sell(agent, reseller.nasId);
    const start = Date.now();
    clock.set(() => start + 301_000);
    const late = await api('POST', `/api/v1/agents/${agent.id}/sales/${old}/undo`, agent.token);
    expect([late.status, codeOf(late)]).toEqual([409, 'ERR_UNDO_TOO_LATE']);
    expect((await getAccessCode(old))?.revoked_at).toBeUndefined();
    expect((await agentOf(reseller.token, agent.id)).float_fcfa).toBe(0);

    const unknown = await api('POST', `/api/v1/agents/${agent.id}/sales/ABCDEFGH/undo`, agent.token);
    expect(unknown.status).toBe(404);
  });
});
