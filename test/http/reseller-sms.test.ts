import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { resetConfig } from '../../functions/core/config.js';
import { RateBudget } from '../../functions/store/rate-limit.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, login, newMsisdn, smsTexts as smsTo, tokenFor, useLocalServer } from '../support/http.js';

// Issue 40's L3 through the local server: every SMS a reseller can make the platform send is
// bounded per number and per reseller, with 429 ERR_RATE_LIMITED and Retry-After past a budget.

const server = useLocalServer();
const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
const DAY = 86_400_000;

afterEach(() => {
  clock.reset();
  delete process.env.RESELLER_SMS_PER_HOUR;
  resetConfig();
});

/** A clock day of its own for each test (the per-number budget counts per UTC day), an hour in. */
let days = 0;
function freshDay(): number {
  days += 1;
  const start = (Math.floor(Date.now() / DAY) + 3 * days) * DAY;
  clock.set(() => start + 3600_000 + 1000);
  return start;
}

async function givenReseller() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  return {
    resellerId,
    nasId: await hotspotOf(resellerId, 'access_sms'),
    token: await tokenFor('reseller', { resellerId }),
  };
}

const invite = (token: string, msisdn: string) =>
  call(server.url(), 'POST', '/api/v1/agents', { token, body: { msisdn, commission_bp: 0 } });

const agentsOf = async (token: string) =>
  ((await call(server.url(), 'GET', '/api/v1/agents', { token })).body as { items: { msisdn: string }[] })
    .items;

describe('L3: the SMS a reseller causes are bounded', () => {
  it('L3: 15 invitations to one number text it 5 times; the others are 429 ERR_RATE_LIMITED with Retry-After and record nothing', async () => {
    freshDay();
    const reseller = await givenReseller();
    const msisdn = newMsisdn();
    const answers = [];
    for (let i = 0; i < 15; i++) answers.push(await invite(reseller.token, msisdn));

    expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(201), ...Array(10).fill(429)]);
    const refused = answers[5] as (typeof answers)[number];
    expect(refused.body).toMatchObject({ error: { code: 'ERR_RATE_LIMITED' } });
    // The rest of the clock day (it is an hour in).
    expect(Number(refused.headers.get('retry-after'))).toBe(23 * 3600 - 1);
    expect(smsTo(msisdn)).toHaveLength(5);
    expect((await agentsOf(reseller.token)).filter((a) => a.msisdn === msisdn)).toHaveLength(5);

    // Another reseller's budget is its own: it may still invite that number.
    expect((await invite((await givenReseller()).token, msisdn)).status).toBe(201);
    expect(smsTo(msisdn)).toHaveLength(6);
  });

  it('L3: counts exactly under concurrency: of 15 parallel invitations to one number, 5 are made and texted', async () => {
    const start = freshDay();
    const reseller = await givenReseller();
    const msisdn = newMsisdn();
    const answers = await Promise.all(Array.from({ length: 15 }, () => invite(reseller.token, msisdn)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(10);
    expect(smsTo(msisdn)).toHaveLength(5);
    const counter = await RateBudget.get(
      { scope: 'SMS_RESELLER_NUMBER', subject: `${reseller.resellerId}#${msisdn}`, windowStart: start },
      { consistent: true },
    );
    expect(counter?.n).toBe(5);
  });

  it("L3: a reseller's hourly budget holds under 20 parallel invitations to 20 numbers (8 an hour here): 8 made and texted, 12 refused", async () => {
    freshDay();
    process.env.RESELLER_SMS_PER_HOUR = '8';
    resetConfig();
    const reseller = await givenReseller();
    const numbers = Array.from({ length: 20 }, () => newMsisdn());
    const answers = await Promise.all(numbers.map((n) => invite(reseller.token, n)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(8);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(12);
    // The rest of the clock hour.
    expect(new Set(refused.map((a) => a.headers.get('retry-after')))).toEqual(new Set(['3599']));
    expect(numbers.flatMap(smsTo)).toHaveLength(8);
  });

  it("L3: the same budgets bound an agent's sale texts: past them the sale stands, its code shown, with sms.sent false", async () => {
    freshDay();
    const reseller = await givenReseller();
    const agentMsisdn = newMsisdn();
    const invited = await invite(reseller.token, agentMsisdn);
    const agentId = (invited.body as { id: string }).id;
    const accepted = await call(server.url(), 'POST', `/api/v1/agents/${agentId}/accept`, {
      token: await login(server.url(), agentMsisdn),
    });
    const agentToken = (accepted.body as { session_token: string }).session_token;
    await call(server.url(), 'POST', `/api/v1/agents/${agentId}/allot`, {
      token: reseller.token,
      body: { float_fcfa: 7 * forfait.price_fcfa },
    });
    const buyer = newMsisdn();
    const sales = [];
    for (let i = 0; i < 7; i++)
      sales.push(
        await call(server.url(), 'POST', `/api/v1/agents/${agentId}/sales`, {
          token: agentToken,
          body: { forfait_id: forfait.id, send_to: buyer },
        }),
      );
    expect(sales.map((s) => s.status)).toEqual(Array(7).fill(201));
    expect(sales.map((s) => (s.body as { sms: { sent: boolean } }).sms.sent)).toEqual([
      ...Array(5).fill(true),
      false,
      false,
    ]);
    expect(smsTo(buyer)).toHaveLength(5);
  });
});
