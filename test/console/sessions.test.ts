import { createHash, randomUUID } from 'node:crypto';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access } from '../../functions/store/access-codes.js';
import { getAccount, upsertOperator } from '../../functions/store/accounts.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { paidCode } from '../support/access.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, openPhone, scrollWidth } from '../support/console.js';
import { type FakeNas, startFakeNas } from '../support/fake-nas.js';
import { call, lastOtp, newMsisdn, tokenFor } from '../support/http.js';
import { asRouter, type EdgeContext, edgeStack, givenUdpRouter, type TestRouter } from '../support/radius.js';

/**
 * "Who is online" in the console, on a 360 px phone, against the run's stack (FreeRADIUS in
 * front, the Disconnect relay next to it) and a fake router answering RFC 5176: each row says
 * the code, forfait, device, time and data left; "Déconnecter" asks first, then says what the
 * router answered (ACK, NAK or nothing), never before it did.
 */
let edge: EdgeContext;
let browser: Browser;
let router: TestRouter;
let nas: FakeNas;
const reseller = { id: randomUUID(), nasId: '' };
const day = SEED_FORFAITS.find((f) => f.name === 'Pass Jour');
const week = SEED_FORFAITS.find((f) => f.name === 'Pass Semaine');

interface Live {
  code: string;
  mac: string;
  id: string;
  acctSessionId: string;
}
/** Three devices online: the router ACKs the first's disconnect, NAKs the second's, ignores the third's. */
const online: Live[] = [];
const answers = new Map<string, 'ack' | 'silence' | { nak: number }>();

const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const newCode = () =>
  Array.from({ length: 10 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join('');
const grouped = (code: string) => code.replace(/(.{4})(?=.)/g, '$1 ');

async function goOnline(code: string, mac: string): Promise<Live> {
  const as = asRouter(edge, router);
  const login = await as.auth({
    'User-Name': code,
    'User-Password': code,
    'NAS-Identifier': reseller.nasId,
    'Calling-Station-Id': mac,
  });
  expect(login.code).toBe('Access-Accept');
  const acctSessionId = randomUUID().slice(0, 8).toUpperCase();
  const start = await as.acct({
    'Acct-Status-Type': 'Start',
    'User-Name': code,
    'NAS-Identifier': reseller.nasId,
    'NAS-IP-Address': '127.0.0.1',
    'Acct-Session-Id': acctSessionId,
    'Calling-Station-Id': mac,
  });
  expect(start.code).toBe('Accounting-Response');
  // The Acct-Unique-Session-Id of the shipped acct_unique policy: the session's id in the API.
  const id = createHash('md5').update(`${code},${acctSessionId},127.0.0.1,${reseller.nasId},,`).digest('hex');
  return { code, mac, id, acctSessionId };
}

beforeAll(async () => {
  edge = await edgeStack();
  process.env.SMS_OUTBOX = edge.smsOutbox;
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  if (!day || !week) throw new Error('the catalogue lacks Pass Jour or Pass Semaine');
  browser = await chromium.launch(CHROMIUM);
  await recordReseller({
    resellerId: reseller.id,
    name: `Chez Fatou ${reseller.id.slice(0, 6)}`,
    country: 'CI',
  });
  reseller.nasId = `access_online_${Date.now().toString(36)}`;
  const hotspot = {
    nas_id: reseller.nasId,
    reseller_id: reseller.id,
    reseller_name: 'Chez Fatou',
    vlan_id: 10,
    kind: 'vlan',
  } as const;
  await Nas.put(hotspot);
  router = await givenUdpRouter(edge, reseller.id, [reseller.nasId]);
  nas = await startFakeNas(router.secret);
  // The fake router takes Disconnect-Requests on a loopback port of its own.
  await Nas.put({ ...hotspot, coa_host: '127.0.0.1', coa_port: nas.port });
  nas.answer((r) => answers.get(String(r.attributes['Acct-Session-Id'])) ?? 'ack');

  // Two codes that carry their forfait's name, one made before codes did (named from the catalogue).
  const made = [
    paidCode(
      reseller.id,
      { data_limit_mb: 1024 },
      { code: newCode(), forfait_id: day.id, forfait_name: day.name },
    ),
    paidCode(reseller.id, { data_limit_mb: 0 }, { code: newCode(), forfait_id: week.id }),
    paidCode(
      reseller.id,
      { data_limit_mb: 500 },
      { code: newCode(), forfait_id: day.id, forfait_name: day.name },
    ),
  ];
  for (const [i, c] of made.entries()) {
    await Access.put(c);
    online.push(await goOnline(c.code, `02:00:00:00:0A:3${i}`));
  }
  answers.set((online[1] as Live).acctSessionId, { nak: 501 });
  answers.set((online[2] as Live).acctSessionId, 'silence');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await nas?.close();
});

/** Logs in with a phone of the reseller's own (one per test: each gets its SMS code). */
async function logIn(page: Page): Promise<void> {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role: 'reseller', resellerId: reseller.id });
  await logInConsole(page, edge.apiUrl, msisdn);
}

const sessionOf = async (id: string) =>
  (
    await call<{ status: string; disconnect: { status: string } | null }>(
      edge.apiUrl,
      'GET',
      `/api/v1/sessions/${id}`,
      { token: await tokenFor('reseller', { resellerId: reseller.id }) },
    )
  ).body;

/** "Déconnecter", then the question, then "Oui, déconnecter". */
async function disconnect(row: Locator, mac: string): Promise<void> {
  await row.getByRole('button', { name: /^Déconnecter/ }).click();
  await row.getByText(`Déconnecter l’appareil ${mac}`).waitFor();
  await row.getByRole('button', { name: 'Oui, déconnecter' }).click();
}

describe('who is online, in the console at 360 px', () => {
  it('fits the phone: each row says the code, forfait, device, time and data left; axe clean; English one tap away', async () => {
    const { context, page, problems } = await openPhone(browser);
    await logIn(page);
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.locator('[data-session]').nth(2).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    const [a, b, c] = online as [Live, Live, Live];
    const rowA = await page.locator(`[data-session="${a.id}"]`).innerText();
    expect(rowA).toContain(grouped(a.code));
    expect(rowA).toContain('Pass Jour');
    expect(rowA).toContain(a.mac);
    expect(rowA).toMatch(/Temps restant\s+23\sh\s\d+\smin/);
    expect(rowA).toMatch(/Données restantes\s+1\sGo/);
    expect(rowA).not.toContain(`${reseller.nasId}/`);
    const rowB = await page.locator(`[data-session="${b.id}"]`).innerText();
    expect(rowB).toContain('Pass Semaine');
    expect(rowB).toMatch(/Données restantes\s+Illimité/);
    expect(await page.locator(`[data-session="${c.id}"]`).innerText()).toMatch(/Données restantes\s+500\sMo/);
    // The confirm step fits too.
    await page
      .locator(`[data-session="${a.id}"]`)
      .getByRole('button', { name: /^Déconnecter/ })
      .click();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    expect(await audit(page)).toEqual([]);
    await page.getByRole('button', { name: 'Annuler' }).click();
    expect(nas.received).toEqual([]);

    await page.getByRole('button', { name: 'English' }).click();
    await expect.poll(() => page.locator(`[data-session="${a.id}"]`).innerText()).toMatch(/Time left/);
    expect(await page.locator(`[data-session="${a.id}"]`).innerText()).toMatch(/Data left\s+1\sGo/);
    await page.getByRole('button', { name: 'Français' }).click();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('asks first, then says what the router answered: ACK closes it, a NAK or silence leaves it open, never "disconnected" before', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await logIn(page);
    await page.getByRole('link', { name: 'Sessions' }).click();
    const [a, b, c] = online as [Live, Live, Live];
    const rowOf = (s: Live) => page.locator(`[data-session="${s.id}"]`);
    await rowOf(c).waitFor();

    // The row's polls of the session are held until the router has answered: the row must still
    // be waiting then, whatever the router said.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(`**/api/v1/sessions/${a.id}`, async (route) => {
      await held;
      await route.continue();
    });
    await disconnect(rowOf(a), a.mac);
    await rowOf(a).getByText('Demande envoyée au routeur, en attente de sa réponse…').waitFor();
    const [request] = await nas.waitFor(1);
    expect(request?.attributes['Acct-Session-Id']).toBe(a.acctSessionId);
    await expect.poll(async () => (await sessionOf(a.id)).status).toBe('closed');
    expect(await rowOf(a).innerText()).not.toContain('Déconnecté');
    release();
    await rowOf(a).getByText('Déconnecté : le routeur a confirmé.').waitFor();
    expect(
      await rowOf(a)
        .getByRole('button', { name: /^Déconnecter/ })
        .count(),
    ).toBe(0);

    // A NAK (Error-Cause 501, administratively prohibited), sent again and refused again: said, the session open.
    await disconnect(rowOf(b), b.mac);
    await rowOf(b)
      .getByText('Le routeur a refusé la déconnexion (Error-Cause 501) : la session reste ouverte.')
      .waitFor({ timeout: 30_000 });
    expect(await sessionOf(b.id)).toMatchObject({ status: 'open', disconnect: { status: 'failed' } });
    // The button is back, to try again.
    expect(
      await rowOf(b)
        .getByRole('button', { name: /^Déconnecter/ })
        .count(),
    ).toBe(1);

    // Silence: after the last try, "no answer", the session open.
    await disconnect(rowOf(c), c.mac);
    await rowOf(c)
      .getByText(/^Le routeur n’a pas répondu : la session est peut-être encore ouverte/)
      .waitFor({
        timeout: 30_000,
      });
    expect(await sessionOf(c.id)).toMatchObject({ status: 'open', disconnect: { status: 'failed' } });
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    expect(await audit(page)).toEqual([]);
    await context.close();
  }, 90_000);

  it('finds ended sessions by code or by the phone that bought the code, 30 days back', async () => {
    // A phone buys a code, uses it, and the router's Stop ends the session.
    const msisdn = newMsisdn();
    await call(edge.apiUrl, 'POST', '/api/v1/auth/otp/request', { body: { msisdn } });
    await call(edge.apiUrl, 'POST', '/api/v1/auth/otp/verify', { body: { msisdn, otp: lastOtp(msisdn) } });
    const buyer = (await getAccount(msisdn))?.id as string;
    const bought = paidCode(
      reseller.id,
      { data_limit_mb: 1024 },
      { code: newCode(), forfait_id: day?.id as string, forfait_name: 'Pass Jour', subscriber_id: buyer },
    );
    await Access.put(bought);
    const used = await goOnline(bought.code, '02:00:00:00:0B:01');
    const stop = await asRouter(edge, router).acct({
      'Acct-Status-Type': 'Stop',
      'User-Name': bought.code,
      'NAS-Identifier': reseller.nasId,
      'NAS-IP-Address': '127.0.0.1',
      'Acct-Session-Id': used.acctSessionId,
      'Calling-Station-Id': used.mac,
      'Acct-Output-Octets': 3 * 1_048_576,
      'Acct-Session-Time': 600,
    });
    expect(stop.code).toBe('Accounting-Response');

    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await logIn(page);
    await page.getByRole('link', { name: 'Sessions' }).click();
    const box = page.getByLabel('Code ou numéro de téléphone');
    // The code as a buyer reads it out: lower case, in groups.
    await box.fill(grouped(bought.code).toLowerCase());
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Chercher' }).click();
        return page.getByTestId('ended').locator(`[data-code="${bought.code}"]`).count();
      })
      .toBe(1);
    const row = await page.getByTestId('ended').locator(`[data-code="${bought.code}"]`).first().innerText();
    expect(row).toContain('Pass Jour');
    expect(row).toContain(used.mac);
    expect(row).toContain('Terminée par le routeur');
    expect(row).toMatch(/3\sMo/);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    expect(await audit(page)).toEqual([]);

    // The phone as people write it here (07 12 34 56 78): the same session.
    await box.fill(msisdn.slice(4).replace(/(\d{2})(?=\d)/g, '$1 '));
    await page.getByRole('button', { name: 'Chercher' }).click();
    await expect
      .poll(() => page.getByTestId('ended').locator(`[data-code="${bought.code}"]`).count())
      .toBe(1);
    // A code nobody used: said.
    await box.fill(newCode());
    await page.getByRole('button', { name: 'Chercher' }).click();
    await page
      .getByText('Aucune session terminée pour ce code ou ce numéro ces 30 derniers jours.')
      .waitFor();
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No ended session for this code or number in the last 30 days.').waitFor();
    expect(await audit(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
