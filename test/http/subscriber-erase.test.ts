import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { verifySession } from '../../functions/auth/tokens.js';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { ddb, tableName } from '../../functions/core/ddb.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { bindingsOfMac } from '../../functions/store/mac-bindings.js';
import { flagUnusedPayment } from '../../functions/store/paid-not-connected.js';
import { getPayment } from '../../functions/store/payments.js';
import { adminCli } from '../support/admin-cli.js';
import { hotspotOf } from '../support/hotspots.js';
import { call, loginAs, loginRemembering, newMsisdn, useLocalServer } from '../support/http.js';

// `npm run admin -- subscribers erase <msisdn>` (functions/auth/erase.ts) against a subscriber
// made through the real flows of the local server: login with a remembered device, a purchase
// through the sandbox, a pending one, a MAC binding, a paid-not-connected flag.

const server = useLocalServer();
const admin = adminCli(() => tableName());
const forfait = SEED_FORFAITS[3] as (typeof SEED_FORFAITS)[number];

/** Every item of the table holding `needle` in any attribute, key or value (a Scan: tests only). */
async function itemsHolding(needle: string): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) if (JSON.stringify(item).includes(needle)) found.push(item);
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

/** A subscriber who logged in remembering the device, bought twice (one paid, one left pending) and bound a MAC. */
async function givenSubscriber() {
  const msisdn = newMsisdn();
  const resellerId = randomUUID();
  const nasId = await hotspotOf(resellerId);
  const { session_token: token, device_token: deviceToken } = await loginRemembering(server.url(), msisdn);

  const buy = () =>
    call<{ payment_url: string; transaction_id: string }>(server.url(), 'POST', '/api/v1/payments/initiate', {
      token,
      body: { forfait_id: forfait.id, provider: 'mtn_momo', nas_id: nasId },
    });
  const paid = await buy();
  expect(paid.status).toBe(201);
  const html = await (await fetch(paid.body.payment_url)).text();
  const action = /action="([^"]+\/complete)"/.exec(html)?.[1];
  expect((await fetch(`${server.url()}${action}`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
  const pending = await buy();
  expect(pending.status).toBe(201);

  const payment = await getPayment(paid.body.transaction_id);
  expect(payment).toMatchObject({ status: 'completed', msisdn });
  const code = payment?.access_code as string;
  expect(await flagUnusedPayment(payment as NonNullable<typeof payment>, new Date().toISOString())).toBe(
    true,
  );
  const mac = '02:00:00:00:0E:01';
  expect(
    (await call(server.url(), 'POST', '/api/v1/access/devices', { body: { nas_id: nasId, code, mac } }))
      .status,
  ).toBe(200);
  return {
    msisdn,
    resellerId,
    token,
    deviceToken,
    mac,
    paidId: paid.body.transaction_id,
    pendingId: pending.body.transaction_id,
  };
}

const deviceSession = (device_token: string) =>
  call(server.url(), 'POST', '/api/v1/auth/device/session', { body: { device_token } });

describe('erasing a subscriber from the CLI', () => {
  it('leaves its number in no item of the table, and keeps its payments for the books without it', async () => {
    const s = await givenSubscriber();
    expect(await itemsHolding(s.msisdn)).not.toEqual([]);
    expect((await deviceSession(s.deviceToken)).status).toBe(200);

    const erased = await admin('subscribers', 'erase', s.msisdn);
    expect(erased).toMatchObject({ code: 0 });
    expect(erased.stdout).toContain(
      'subscriber erased: account deleted, 1 device credential(s) and 1 MAC binding(s)',
    );

    // Nowhere, whether written as E.164 or as its digits (a subscriber's `ref` is SUB-<digits>).
    expect(await itemsHolding(s.msisdn)).toEqual([]);
    expect(await itemsHolding(s.msisdn.slice(1))).toEqual([]);
    // The payments stay, with what the books need.
    for (const id of [s.paidId, s.pendingId]) {
      const p = await getPayment(id);
      expect(p).toMatchObject({ id, reseller_id: s.resellerId, amount_fcfa: forfait.price_fcfa });
      expect(p).not.toHaveProperty('msisdn');
    }
  });

  it('ends its remembered device and its MAC login, and its number starts again from nothing', async () => {
    const s = await givenSubscriber();
    expect((await bindingsOfMac(s.resellerId, s.mac)).length).toBe(1);
    expect(await verifySession(s.token, { checkRevocation: true })).toMatchObject({ role: 'subscriber' });

    expect((await admin('subscribers', 'erase', '--msisdn', s.msisdn)).code).toBe(0);

    // Its session token, where revocation is checked: its account is gone.
    await expect(verifySession(s.token, { checkRevocation: true })).rejects.toMatchObject({
      code: 'ERR_UNAUTHENTICATED',
    });
    expect(await deviceSession(s.deviceToken)).toMatchObject({
      status: 401,
      body: { error: { code: 'ERR_UNAUTHENTICATED' } },
    });
    expect(await bindingsOfMac(s.resellerId, s.mac)).toEqual([]);
    // No account: a new login creates a new one (a new id), with none of the old history.
    const again = await call<{ otp_token: string }>(server.url(), 'POST', '/api/v1/auth/otp/request', {
      body: { msisdn: s.msisdn },
    });
    expect(again.status).toBe(200);
  });

  it('L1: ends its live session token, so no new payment carries its number again', async () => {
    const s = await givenSubscriber();
    expect((await admin('subscribers', 'erase', s.msisdn)).code).toBe(0);

    // The token it held (900 s, not expired): refused on every route, a purchase first.
    const buy = await call(server.url(), 'POST', '/api/v1/payments/initiate', {
      token: s.token,
      body: { forfait_id: forfait.id, provider: 'mtn_momo' },
    });
    expect(buy).toMatchObject({ status: 401, body: { error: { code: 'ERR_UNAUTHENTICATED' } } });
    expect((await call(server.url(), 'GET', '/api/v1/access/mine', { token: s.token })).status).toBe(401);
    expect(await itemsHolding(s.msisdn)).toEqual([]);
  });

  it('is harmless run again, and refuses an operator number', async () => {
    const s = await givenSubscriber();
    expect((await admin('subscribers', 'erase', s.msisdn)).code).toBe(0);

    const twice = await admin('subscribers', 'erase', s.msisdn);
    expect(twice).toMatchObject({ code: 0 });
    expect(twice.stdout).toContain('nothing to erase');

    const operator = newMsisdn();
    await upsertOperator({ msisdn: operator, role: 'reseller', resellerId: randomUUID() });
    const refused = await admin('subscribers', 'erase', operator);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('operator');
    expect(await itemsHolding(operator)).not.toEqual([]);
    // A malformed number is a usage error, and changes nothing.
    expect((await admin('subscribers', 'erase', 'not-a-number')).code).not.toBe(0);
  });
});

describe('erasing a subscriber through the admin API', () => {
  it('erases for an admin (200 with the counts), then answers 404; 409 for an operator, 400 for a malformed number', async () => {
    const s = await givenSubscriber();
    const admin = await loginAs(server.url(), 'admin');
    const erase = (msisdn: string) =>
      call(server.url(), 'POST', '/api/v1/subscribers/erase', { token: admin.token, body: { msisdn } });

    expect(await erase(s.msisdn)).toMatchObject({
      status: 200,
      body: { account: true, devices: 1, mac_bindings: 1, payments: 2, flags: 1, limits: 1 },
    });
    expect(await itemsHolding(s.msisdn)).toEqual([]);
    expect(await erase(s.msisdn)).toMatchObject({ status: 404, body: { error: { code: 'ERR_NOT_FOUND' } } });
    expect(await erase(admin.msisdn)).toMatchObject({
      status: 409,
      body: { error: { code: 'ERR_CONFLICT' } },
    });
    expect(await erase('+1')).toMatchObject({ status: 400 });
  });
});
