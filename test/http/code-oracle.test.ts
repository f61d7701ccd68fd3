import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { clock } from '../../functions/core/clock.js';
import { GUESS_BUDGETS } from '../../functions/radius/guesses.js';
import { Access, getAccessCode } from '../../functions/store/access-codes.js';
import { holdsLoginPass } from '../../functions/store/login-passes.js';
import { RateBudget, windowStartOf } from '../../functions/store/rate-limit.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, tokenFor, useLocalServer } from '../support/http.js';

// Issue 40's M1 through the local server: the public code check, and the routes that take a code
// with a session token, give a guesser no answer that depends on the code once its budget is
// spent, and never confirm a printed card nobody has used.

const server = useLocalServer({ trustForwardedFor: true });
const { address: ADDRESS_GUESSES, account: ACCOUNT_GUESSES } = GUESS_BUDGETS;
const forfait = SEED_FORFAITS[0] as { id: string };
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const guess = () => Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * 31)]).join('');

afterEach(() => clock.reset());

/** Every budget of a test counts in one 10-minute window: the start of a fresh one, far ahead. */
let windows = 0;
function freshWindow(): number {
  windows += 1;
  const start = windowStartOf(ADDRESS_GUESSES, Date.now()) + windows * 6 * ADDRESS_GUESSES.windowMs;
  clock.set(() => start + 1000);
  return start;
}

let seq = 0;
/** An address of its own for each caller (API Gateway's `sourceIp`, here x-forwarded-for). */
const address = () => `198.51.100.${++seq}`;

async function resellerWithHotspot() {
  const resellerId = randomUUID();
  await recordReseller({ resellerId, name: 'Chez Awa' });
  return { resellerId, nasId: await hotspotOf(resellerId) };
}

/** Printed cards of a reseller's stock, never used. */
async function cards(resellerId: string, n: number): Promise<string[]> {
  const made = await call<{ items: { code: string }[] }>(server.url(), 'POST', '/api/v1/vouchers/generate', {
    token: await tokenFor('admin'),
    body: { forfait_id: forfait.id, reseller_id: resellerId, n },
  });
  expect(made.status).toBe(201);
  return made.body.items.map((i) => i.code);
}

/** A code in use: bought and started an hour ago, with time left. */
async function codeInUse(resellerId: string): Promise<string> {
  const now = clock.now();
  const c = paidCode(
    resellerId,
    {},
    {
      started_at: new Date(now - 3600_000).toISOString(),
      expires_at: new Date(now + 20 * 3600_000).toISOString(),
    },
  );
  await Access.put(c);
  return c.code;
}

const check = (nasId: string, code: string, from: string) =>
  call(server.url(), 'POST', '/api/v1/access/check', {
    body: { nas_id: nasId, code },
    headers: { 'x-forwarded-for': from },
  });

const answer = (r: { status: number; body: unknown }) => JSON.stringify([r.status, r.body]);
const UNCONFIRMED = answer({ status: 200, body: { valid: false, reason: 'unconfirmed' } });

describe('M1: the public code check is no oracle', () => {
  it('M1: answers 300 guesses from one address alike, a never-used printed card at positions 5, 150 and 299 included, and confirms nothing past the budget', async () => {
    freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const [card] = (await cards(resellerId, 1)) as [string];
    const inUse = await codeInUse(resellerId);
    const from = address();

    const typed = Array.from({ length: 300 }, (_, i) => ([5, 150, 299].includes(i + 1) ? card : guess()));
    // In order, ten at a time (the red team's 300 took 1.4 s).
    const answers: string[] = [];
    for (let at = 0; at < typed.length; at += 10)
      answers.push(
        ...(await Promise.all(typed.slice(at, at + 10).map((c) => check(nasId, c, from)))).map(answer),
      );
    expect(new Set(answers)).toEqual(new Set([UNCONFIRMED]));
    // The card is as printed: nobody used it, nothing was confirmed.
    expect((await getAccessCode(card))?.started_at).toBeUndefined();

    // Past its budget the address gets the same answer for a code in use...
    expect(answer(await check(nasId, inUse, from))).toBe(UNCONFIRMED);
    // ...which another address, with its budget, is told about.
    expect(await check(nasId, inUse, address())).toMatchObject({ status: 200, body: { valid: true } });
  });

  it('M1: answers a code in use on its merits until the address has tried 20 wrong codes here, then "unconfirmed" whatever the code', async () => {
    freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const inUse = await codeInUse(resellerId);
    const from = address();
    for (let i = 0; i < ADDRESS_GUESSES.limit; i++) {
      // A right code costs nothing: it is answered between the wrong ones.
      expect(await check(nasId, inUse, from)).toMatchObject({ status: 200, body: { valid: true } });
      expect(answer(await check(nasId, guess(), from))).toBe(UNCONFIRMED);
    }
    expect(answer(await check(nasId, inUse, from))).toBe(UNCONFIRMED);
  });

  it('M1: counts exactly under concurrency: 40 parallel wrong codes spend 20 places, 20 parallel right codes none', async () => {
    const start = freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const inUse = await codeInUse(resellerId);
    const [guesser, neighbour] = [address(), address()];
    const counter = (from: string) =>
      RateBudget.get(
        { scope: ADDRESS_GUESSES.scope, subject: `${nasId}/addr:${from}`, windowStart: start },
        { consistent: true },
      );

    const right = await Promise.all(Array.from({ length: 20 }, () => check(nasId, inUse, neighbour)));
    expect(right.map((r) => r.body)).toEqual(Array(20).fill(expect.objectContaining({ valid: true })));
    expect((await counter(neighbour))?.n ?? 0).toBe(0);

    const wrong = await Promise.all(Array.from({ length: 40 }, () => check(nasId, guess(), guesser)));
    expect(new Set(wrong.map(answer))).toEqual(new Set([UNCONFIRMED]));
    expect((await counter(guesser))?.n).toBe(ADDRESS_GUESSES.limit);
    // Spent: even 20 right codes at once get no answer of their own.
    const after = await Promise.all(Array.from({ length: 20 }, () => check(nasId, inUse, guesser)));
    expect(new Set(after.map(answer))).toEqual(new Set([UNCONFIRMED]));
  });

  it('M1: "remember this device" tells a printed card nobody used from an unknown code: it does not (404 for both)', async () => {
    freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const [card] = (await cards(resellerId, 1)) as [string];
    const from = address();
    const remember = (code: string) =>
      call(server.url(), 'POST', '/api/v1/access/devices', {
        body: { nas_id: nasId, code, mac: '02:00:00:40:00:01' },
        headers: { 'x-forwarded-for': from },
      });
    const [forCard, forGuess] = [await remember(card), await remember(guess())];
    expect(answer(forCard)).toBe(answer(forGuess));
    expect(forCard.status).toBe(404);
    expect((await getAccessCode(card))?.bound_devices ?? 0).toBe(0);
  });
});

describe('M1: the routes that take a code with a session token are budgeted per account', () => {
  it('M1: after 10 wrong codes, redeem answers 429 with Retry-After for a right printed card too, and leaves it unused; another account redeems it', async () => {
    freshWindow();
    const { resellerId } = await resellerWithHotspot();
    const [card] = (await cards(resellerId, 1)) as [string];
    const guesser = await tokenFor('subscriber');
    const redeem = (code: string, token: string) =>
      call(server.url(), 'POST', '/api/v1/vouchers/redeem', { token, body: { code } });

    for (let i = 0; i < ACCOUNT_GUESSES.limit; i++)
      expect(await redeem(guess(), guesser)).toMatchObject({
        status: 404,
        body: { error: { code: 'ERR_NOT_FOUND' } },
      });
    const refused = await redeem(card, guesser);
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'ERR_RATE_LIMITED' } } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await getAccessCode(card))?.voucher_status).toBe('active');

    expect(await redeem(card, await tokenFor('subscriber'))).toMatchObject({
      status: 200,
      body: { source: 'voucher' },
    });
  });

  it('M1: counts exactly under concurrency: of 30 parallel wrong redeems from one account, 10 are answered 404 and 20 get 429', async () => {
    freshWindow();
    const token = await tokenFor('subscriber');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        call(server.url(), 'POST', '/api/v1/vouchers/redeem', { token, body: { code: guess() } }),
      ),
    );
    expect(answers.filter((a) => a.status === 404)).toHaveLength(ACCOUNT_GUESSES.limit);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(30 - ACCOUNT_GUESSES.limit);
  });
});

describe('M1 (issue 40): a login pass is proven within the account budget, and is no oracle past it', () => {
  const pass = (token: string, nasId: string, code: string, mac: string) =>
    call(server.url(), 'POST', '/api/v1/access/pass', { token, body: { nas_id: nasId, code, mac } });
  const device = (nasId: string, mac: string) => `${nasId}/${mac}`;

  it("M1: gives a signed-in buyer's phone a pass for a never-used printed card at this hotspot only, for 15 minutes; past 10 wrong codes an hour every code gets 429, a right card too, and no pass", async () => {
    freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const [card, other] = (await cards(resellerId, 2)) as [string, string];
    const buyer = await tokenFor('subscriber');
    const mac = '02:50:00:00:00:01';
    // Typed as on the ticket, with the MAC as the router's page writes it.
    const given = await pass(buyer, nasId, `${card.slice(0, 4)}-${card.slice(4)}`.toLowerCase(), mac);
    expect(given).toMatchObject({
      status: 200,
      body: { valid: true, first_use: true, seconds_remaining: 3600, bytes_remaining: 300 * 1048576 },
    });
    const until = Date.parse((given.body as { pass_expires_at: string }).pass_expires_at);
    expect(until).toBe(clock.now() + 15 * 60_000);
    expect(await holdsLoginPass(card, device(nasId, mac), clock.now())).toBe(true);
    expect(await holdsLoginPass(card, device(nasId, '02:50:00:00:00:02'), clock.now())).toBe(false);
    expect(await holdsLoginPass(card, device(nasId, mac), until)).toBe(false);
    // Nothing used up: the card's clock starts at its first login, at the router.
    expect((await getAccessCode(card))?.started_at).toBeUndefined();

    const guesser = await tokenFor('subscriber');
    const guesserMac = '02:50:00:00:00:03';
    for (let i = 0; i < ACCOUNT_GUESSES.limit; i++)
      expect(await pass(guesser, nasId, guess(), guesserMac)).toMatchObject({
        status: 404,
        body: { error: { code: 'ERR_NOT_FOUND' } },
      });
    const [right, wrong] = [
      await pass(guesser, nasId, other, guesserMac),
      await pass(guesser, nasId, guess(), guesserMac),
    ];
    expect(right).toMatchObject({ status: 429, body: { error: { code: 'ERR_RATE_LIMITED' } } });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answer(right)).toBe(answer(wrong));
    expect(await holdsLoginPass(other, device(nasId, guesserMac), clock.now())).toBe(false);
    // The buyer's account is its own: its pass is given again (a retry renews it).
    expect(await pass(buyer, nasId, card, mac)).toMatchObject({ status: 200, body: { valid: true } });
  });

  it('M1: answers a code of another reseller as an unknown one (404, counted), and a used-up code with why (no pass)', async () => {
    freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const elsewhere = await resellerWithHotspot();
    const [theirs] = (await cards(elsewhere.resellerId, 1)) as [string];
    const token = await tokenFor('subscriber');
    const mac = '02:50:00:00:00:04';
    const [forTheirs, forGuess] = [
      await pass(token, nasId, theirs, mac),
      await pass(token, nasId, guess(), mac),
    ];
    expect(forTheirs.status).toBe(404);
    expect(answer(forTheirs)).toBe(answer(forGuess));
    const ended = paidCode(resellerId, {}, { revoked_at: new Date(clock.now()).toISOString() });
    await Access.put(ended);
    expect(await pass(token, nasId, ended.code, mac)).toMatchObject({
      status: 200,
      body: { valid: false, reason: 'revoked' },
    });
    expect(await holdsLoginPass(ended.code, device(nasId, mac), clock.now())).toBe(false);
  });
});

describe('M1 (issue 40): the public check says a flood at the hotspot, the same for every code', () => {
  it("M1: once the hotspot's RADIUS count is spent, answers a code in use, a never-used card and a wrong code each with `flood: true`, as before otherwise, and spends none of that count", async () => {
    const start = freshWindow();
    const { resellerId, nasId } = await resellerWithHotspot();
    const [card] = (await cards(resellerId, 1)) as [string];
    const inUse = await codeInUse(resellerId);
    const from = address();
    expect((await check(nasId, inUse, from)).body).toEqual(expect.not.objectContaining({ flood: true }));
    const nasCount = { scope: GUESS_BUDGETS.nas.scope, subject: nasId, windowStart: start };
    await RateBudget.upsert(nasCount, { add: { n: GUESS_BUDGETS.nas.limit } });

    expect(await check(nasId, inUse, from)).toMatchObject({
      status: 200,
      body: { valid: true, flood: true },
    });
    const [forCard, forGuess] = [await check(nasId, card, from), await check(nasId, guess(), from)];
    expect([forCard.status, forCard.body]).toEqual([
      200,
      { valid: false, reason: 'unconfirmed', flood: true },
    ]);
    expect(answer(forGuess)).toBe(answer(forCard));
    expect((await RateBudget.get(nasCount, { consistent: true }))?.n).toBe(GUESS_BUDGETS.nas.limit);
  });
});
