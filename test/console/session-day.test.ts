import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../functions/core/clock.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, openPhone, scrollWidth } from '../support/console.js';
import { newMsisdn, useLocalServer } from '../support/http.js';

/**
 * A reseller's working day in the console, in Chromium at 360 px: it logs in once with an SMS
 * code and works eleven hours without another; a logout ends its own tab's session only; "Se
 * déconnecter partout" ends every one, and a tab whose session ended shows the login without
 * texting a code nobody asked for.
 */
const server = useLocalServer();
let browser: Browser;
const resellerId = randomUUID();

const texts = (msisdn: string) =>
  readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string })
    .filter((m) => m.to === msisdn).length;

beforeAll(async () => {
  browser = await chromium.launch(CHROMIUM);
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(() => clock.reset());

const givenPhone = async () => {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role: 'reseller', resellerId });
  return msisdn;
};

/** Opens a tab and waits for its screen: the heading of the tab asked for. */
async function visit(page: Page, tab: string, heading: string) {
  await page.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: tab }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/** The browser's own line for each refused request (a 401 is one): what the page logged otherwise. */
const faults = (problems: string[]) => problems.filter((p) => !/status of 401/.test(p));

describe('a reseller’s day in the console', () => {
  it('logs in once and works eleven hours without another SMS code', async () => {
    const msisdn = await givenPhone();
    const { page, problems, context } = await openPhone(browser);
    await logInConsole(page, server.url(), msisdn);
    expect(texts(msisdn)).toBe(1);

    // Every 100 minutes, the reseller opens a screen: the server's clock and the phone's move on.
    const start = Date.now();
    for (let minutes = 100; minutes <= 660; minutes += 100) {
      clock.set(() => start + minutes * 60_000);
      await page.clock.setSystemTime(start + minutes * 60_000);
      if (minutes % 200) {
        await visit(page, 'Codes', 'Codes');
        await page.getByLabel('Nombre de codes').waitFor();
      } else {
        await visit(page, 'Tableau de bord', 'Tableau de bord');
        await page.getByTestId('summary-total').waitFor();
      }
    }
    expect(texts(msisdn)).toBe(1);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByLabel('Numéro de téléphone').count()).toBe(0);
    expect(faults(problems)).toEqual([]);
    await context.close();
  });

  it('logs out one tab’s session only; "Se déconnecter partout" ends all, and the other tabs show the login without texting a code', async () => {
    const msisdn = await givenPhone();
    const { page: a, context, problems } = await openPhone(browser);
    await logInConsole(a, server.url(), msisdn);
    // A second tab, logged in on its own.
    const b = await context.newPage();
    await logInConsole(b, server.url(), msisdn);
    // A third opened from the second: its storage copied, it takes a session of its own.
    const opened = context.waitForEvent('page');
    await b.evaluate(() => (globalThis as unknown as { open(u: string): void }).open('/console#codes'));
    const c = await opened;
    await c.getByRole('heading', { name: 'Codes', level: 1 }).waitFor();
    const sent = texts(msisdn);

    await a.getByRole('button', { name: 'Déconnexion' }).click();
    await a.getByRole('button', { name: 'Recevoir le code par SMS' }).waitFor();
    // The others work on.
    await visit(b, 'Codes', 'Codes');
    await visit(c, 'Tableau de bord', 'Tableau de bord');
    // The second tab logs out: the one opened from it has a session of its own, and works on.
    await b.getByRole('button', { name: 'Déconnexion' }).click();
    await b.getByRole('button', { name: 'Recevoir le code par SMS' }).waitFor();
    await visit(c, 'Codes', 'Codes');
    expect(await scrollWidth(c)).toBeLessThanOrEqual(360);
    expect(await audit(c)).toEqual([]);

    // Everywhere: asked first, then every session ends.
    const other = await context.newPage();
    await logInConsole(other, server.url(), msisdn);
    await c.getByRole('button', { name: 'Se déconnecter partout' }).click();
    await c.getByText('Fermer votre session sur tous vos téléphones et ordinateurs ?').waitFor();
    await c.getByRole('button', { name: 'Oui, partout' }).click();
    await c.getByRole('button', { name: 'Recevoir le code par SMS' }).waitFor();
    const before = texts(msisdn);
    // The other tab, at its next step, shows the login and says why; no code is texted.
    await other.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Paiements' }).click();
    await other.getByText('Votre session a pris fin', { exact: false }).waitFor();
    await other.getByRole('button', { name: 'Recevoir le code par SMS' }).waitFor();
    expect(await other.getByRole('dialog').count()).toBe(0);
    expect(texts(msisdn)).toBe(before);
    expect(before).toBe(sent + 1);
    expect(await audit(other)).toEqual([]);
    expect(faults(problems)).toEqual([]);
    await context.close();
  });
});
