import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

const server = useLocalServer();
afterEach(() => clock.reset());
const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
const today = () => clock.iso().slice(0, 10);

const api = (method: string, path: string, token: string, body?: unknown) =>
  call(server.url(), method, path, { token, ...(body !== undefined ? { body } : {}) });

interface Answer {
  float_fcfa: number;
  stock: Record<string, number>;
  owed_fcfa: number;
  cash_received_fcfa: number;
  handover: { id: string; kind: string; undo_until: string; undone_at?: string };
}

async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  await hotspotOf(resellerId, 'access_handover');
  return { resellerId, token: await tokenFor('reseller', { resellerId }) };
}

async function givenAgent(reseller: { token: string }) {
  const msisdn = newMsisdn();
  const created = await api('POST', '/api/v1/agents', reseller.token, { msisdn, commission_bp: 1000 });
  const id = (created.body as { id: string }).id;
  const accepted = await api('POST', `/api/v1/agents/${id}/accept`, await login(server.url(), msisdn));
  return { id, token: (accepted.body as { session_token: string }).session_token };
}

const balance = async (r: { token: string }, id: string) =>
  ((await api('GET', `/api/v1/agents/${id}`, r.token)).body as { agent: Answer }).agent;

describe("an agent's handovers", () => {
  it('float given is in the history, undone within five minutes, and not after', async () => {
    const r = await givenReseller();
    const a = await givenAgent(r);
    const given = await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: 5000 });
    expect(given.status).toBe(200);
    const g = given.body as unknown as Answer;
    expect(g).toMatchObject({ float_fcfa: 5000, handover: { kind: 'float', float_fcfa: 5000 } });

    const undone = await api('POST', `/api/v1/agents/${a.id}/handovers/${g.handover.id}/undo`, r.token);
    expect(undone.status, JSON.stringify(undone.body)).toBe(200);
    expect(undone.body).toMatchObject({ float_fcfa: 0, handover: { undone_at: expect.any(String) } });
    // Once only.
    const again = await api('POST', `/api/v1/agents/${a.id}/handovers/${g.handover.id}/undo`, r.token);
    expect([again.status, (again.body as { error: { code: string } }).error.code]).toEqual([
      409,
      'ERR_UNDO_TOO_LATE',
    ]);

    const later = (await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: 700 }))
      .body as unknown as Answer;
    const start = Date.now();
    clock.set(() => start + 301_000);
    const late = await api('POST', `/api/v1/agents/${a.id}/handovers/${later.handover.id}/undo`, r.token);
    expect((late.body as { error: { code: string } }).error.code).toBe('ERR_UNDO_TOO_LATE');
    expect((await balance(r, a.id)).float_fcfa).toBe(700);

    // The agent reads its own history; newest first, the undone one marked.
    const h = await api('GET', `/api/v1/agents/${a.id}/handovers`, a.token);
    expect(h.status).toBe(200);
    const items = (h.body as { items: Answer['handover'][] }).items;
    expect(items.map((x) => [x.id, x.undone_at !== undefined])).toEqual([
      [later.handover.id, false],
      [g.handover.id, true],
    ]);
  });

  it('float already sold cannot be undone: 409 and the float stays as it is', async () => {
    const r = await givenReseller();
    const a = await givenAgent(r);
    const g = (await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: forfait.price_fcfa }))
      .body as unknown as Answer;
    expect(
      (await api('POST', `/api/v1/agents/${a.id}/sales`, a.token, { forfait_id: forfait.id })).status,
    ).toBe(201);
    const undo = await api('POST', `/api/v1/agents/${a.id}/handovers/${g.handover.id}/undo`, r.token);
    expect([undo.status, (undo.body as { error: { code: string } }).error.code]).toEqual([
      409,
      'ERR_AGENT_FLOAT_EXHAUSTED',
    ]);
    expect((await balance(r, a.id)).float_fcfa).toBe(0);
  });

  it("cash received is undone: the agent owes it again and the statement's cash list drops it", async () => {
    const r = await givenReseller();
    const a = await givenAgent(r);
    await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: forfait.price_fcfa });
    await api('POST', `/api/v1/agents/${a.id}/sales`, a.token, { forfait_id: forfait.id });
    const owed = (await balance(r, a.id)).owed_fcfa;
    const cash = (await api('POST', `/api/v1/agents/${a.id}/cash`, r.token, { amount_fcfa: owed }))
      .body as unknown as Answer;
    expect(cash).toMatchObject({
      owed_fcfa: 0,
      cash_received_fcfa: owed,
      handover: { kind: 'cash', cash_fcfa: owed },
    });
    const undo = await api('POST', `/api/v1/agents/${a.id}/handovers/${cash.handover.id}/undo`, r.token);
    expect(undo.status).toBe(200);
    expect(undo.body).toMatchObject({ owed_fcfa: owed, cash_received_fcfa: 0 });
    const statement = (await api('GET', `/api/v1/agents/${a.id}`, r.token)).body as { cash: unknown[] };
    expect(statement.cash).toEqual([]);
    const over = await api('POST', `/api/v1/agents/${a.id}/cash`, r.token, { amount_fcfa: owed + 1 });
    expect((over.body as { error: { code: string } }).error.code).toBe('ERR_AGENT_CASH_OVER_OWED');
  });

  it('float and codes move between agents and back to the reseller, never beyond what is held, in parallel too', async () => {
    const r = await givenReseller();
    const a = await givenAgent(r);
    const b = await givenAgent(r);
    await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: 1000 });
    await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { forfait_id: forfait.id, count: 5 });

    // Ten moves of 300 at once from a float of 1000: exactly three.
    const moves = await Promise.all(
      Array.from({ length: 10 }, () =>
        api('POST', `/api/v1/agents/${a.id}/move`, r.token, { to_agent_id: b.id, float_fcfa: 300 }),
      ),
    );
    const statuses = moves.map((m) => m.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    for (const m of moves.filter((x) => x.status !== 200))
      expect([m.status, (m.body as { error: { code: string } }).error.code]).toEqual([
        409,
        'ERR_AGENT_FLOAT_EXHAUSTED',
      ]);
    expect([(await balance(r, a.id)).float_fcfa, (await balance(r, b.id)).float_fcfa]).toEqual([100, 900]);

    // Codes: two to the other agent, three back to the reseller, then none left to move.
    const codes = await api('POST', `/api/v1/agents/${a.id}/move`, r.token, {
      to_agent_id: b.id,
      forfait_id: forfait.id,
      count: 2,
    });
    expect(codes.status).toBe(200);
    const back = await api('POST', `/api/v1/agents/${a.id}/move`, r.token, {
      forfait_id: forfait.id,
      count: 3,
    });
    expect(back.body).toMatchObject({ stock: { [forfait.id]: 0 }, handover: { kind: 'move', count: -3 } });
    const none = await api('POST', `/api/v1/agents/${a.id}/move`, r.token, {
      forfait_id: forfait.id,
      count: 1,
    });
    expect((none.body as { error: { code: string } }).error.code).toBe('ERR_AGENT_STOCK_EXHAUSTED');
    expect((await balance(r, b.id)).stock[forfait.id]).toBe(2);

    // The move shows in both histories; undone, both sides are as before.
    const bHistory = (await api('GET', `/api/v1/agents/${b.id}/handovers`, b.token)).body as {
      items: { id: string; from_agent_id?: string; count?: number }[];
    };
    const moved = (codes.body as unknown as Answer).handover.id;
    expect(bHistory.items.find((x) => x.id === moved)).toMatchObject({ from_agent_id: a.id, count: 2 });
    const undo = await api('POST', `/api/v1/agents/${a.id}/handovers/${moved}/undo`, r.token);
    expect(undo.status).toBe(200);
    expect([(await balance(r, a.id)).stock[forfait.id], (await balance(r, b.id)).stock[forfait.id]]).toEqual([
      2, 0,
    ]);
  });

  it('bad moves change nothing: to itself 400, to another reseller 404, an unknown handover 404', async () => {
    const r = await givenReseller();
    const a = await givenAgent(r);
    const other = await givenAgent(await givenReseller());
    await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: 1000 });
    const self = await api('POST', `/api/v1/agents/${a.id}/move`, r.token, {
      to_agent_id: a.id,
      float_fcfa: 1,
    });
    expect(self.status).toBe(400);
    const foreign = await api('POST', `/api/v1/agents/${a.id}/move`, r.token, {
      to_agent_id: other.id,
      float_fcfa: 1,
    });
    expect(foreign.status).toBe(404);
    expect((await api('POST', `/api/v1/agents/${a.id}/move`, r.token, { float_fcfa: 0 })).status).toBe(400);
    expect((await api('POST', `/api/v1/agents/${a.id}/move`, r.token, { count: 1 })).status).toBe(400);
    expect((await api('POST', `/api/v1/agents/${a.id}/handovers/${randomUUID()}/undo`, r.token)).status).toBe(
      404,
    );
    expect((await balance(r, a.id)).float_fcfa).toBe(1000);
  });

  it("a cashier finds today's sale by its code as printed or by the buyer's number", async () => {
    const r = await givenReseller();
    const a = await givenAgent(r);
    await api('POST', `/api/v1/agents/${a.id}/allot`, r.token, { float_fcfa: 10 * forfait.price_fcfa });
    const buyer = newMsisdn();
    const texted = await api('POST', `/api/v1/agents/${a.id}/sales`, a.token, {
      forfait_id: forfait.id,
      send_to: buyer,
    });
    const plain = await api('POST', `/api/v1/agents/${a.id}/sales`, a.token, { forfait_id: forfait.id });
    const code = (plain.body as { sale: { code: string } }).sale.code;
    const find = async (q: string) =>
      (
        (
          await api(
            'GET',
            `/api/v1/agents/${a.id}/sales?from=${today()}&to=${today()}&q=${encodeURIComponent(q)}`,
            a.token,
          )
        ).body as { items: { code: string }[] }
      ).items.map((s) => s.code);
    const spaced = `${code.slice(0, 4)} ${code.slice(4)}`.toLowerCase();
    expect(await find(spaced)).toEqual([code]);
    // The number as typed locally (its last digits).
    expect(
      await find(
        `07 ${buyer.slice(-8, -6)} ${buyer.slice(-6, -4)} ${buyer.slice(-4, -2)} ${buyer.slice(-2)}`,
      ),
    ).toEqual([(texted.body as { sale: { code: string } }).sale.code]);
    expect(await find('ZZZZZZ')).toEqual([]);
  });
});
