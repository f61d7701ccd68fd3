import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { consoleApi } from '../support/console.js';
import { lastOtp, newMsisdn, tokenFor } from '../support/http.js';
import { type EdgeContext, edgeStack } from '../support/radius.js';

/**
 * The console's words and formats, the logo upload and the operator's screens, in Chromium at
 * 360 px against the run's stack: numbers typed as people write them, refusals said in the
 * reader's language from their codes, names instead of ids, a logo chosen as a file and a broken
 * one never shown to subscribers, a link to the Journal kept through the login, the Journal as
 * sentences filtered by reseller and kind, resellers picked by name. Axe at every step.
 */
let edge: EdgeContext;
let browser: Browser;
let admin = '';
const reseller = { id: randomUUID(), name: '', nasId: '' };
const forfait = SEED_FORFAITS[1] as { id: string; name: string };
const SHOTS = process.env.CONSOLE_SHOTS;

const api = (method: string, path: string, token: string, body?: unknown) =>
  consoleApi(edge.apiUrl, method, path, token, body);

interface Watched {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

async function open(): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /CSP/.test(m.text())) problems.push(m.text());
  });
  // No request leaves the stack: any other host fails, as a logo host out of reach would.
  await context.route(/^https:\/\//, (route) => route.abort());
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));",
  );
  return { context, page, problems };
}

/** Logs in on the console, the number typed as it is written in Côte d'Ivoire (07 12 34 56 78). */
async function logIn(page: Page, msisdn: string, path = '/console'): Promise<void> {
  await page.goto(`${edge.apiUrl}${path}`);
  const national = msisdn.slice(4).replace(/(\d\d)(?=\d)/g, '$1 ');
  await page.getByLabel('Numéro de téléphone').fill(national);
  await page.getByRole('button', { name: 'Recevoir le code par SMS' }).click();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').waitFor();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').fill(lastOtp(msisdn));
  await page.getByRole('button', { name: 'Valider' }).click();
  await page.getByRole('navigation', { name: 'Menu' }).waitFor();
}

type Doc = { document: { documentElement: { scrollWidth: number; innerText: string } } };
const scrollWidth = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as Doc).document.documentElement.scrollWidth);
/** What the page says; no English of the API's ("must be…", "Invalid query", "healthy") in French. */
const pageText = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as Doc).document.documentElement.innerText);
const NO_ENGLISH = /\bmust\b|Invalid|\bhealthy\b|not a number|not found/i;

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function resellerPhone(): Promise<string> {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role: 'reseller', resellerId: reseller.id });
  return msisdn;
}

beforeAll(async () => {
  edge = await edgeStack();
  process.env.SMS_OUTBOX = edge.smsOutbox;
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  browser = await chromium.launch(CHROMIUM);
  admin = await tokenFor('admin');
  reseller.name = `Chez Awa ${reseller.id.slice(0, 6)}`;
  await recordReseller({ resellerId: reseller.id, name: reseller.name, country: 'CI' });
  const vlan = await api('POST', '/api/v1/network/vlan/allocate', admin, {
    reseller_id: reseller.id,
    reseller_name: reseller.name,
    site_count: 1,
  });
  expect(vlan.status).toBe(201);
  reseller.nasId = String(vlan.body.nas_id);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('words and formats, for a reseller at 360 px', () => {
  it('logs in with the number typed the national way, and says refusals in the reader’s language', async () => {
    const w = await open();
    const phone = await resellerPhone();
    await logIn(w.page, phone);
    await w.page.getByRole('link', { name: 'Hotspots' }).click();
    const colour = w.page.locator(`#${reseller.nasId}-primary_color`);
    await colour.fill('rouge');
    await w.page.getByRole('button', { name: 'Enregistrer', exact: true }).click();
    await w.page.getByText('Une couleur au format #rrggbb, par exemple #0f6cbd.').waitFor();
    expect(await pageText(w.page)).not.toMatch(NO_ENGLISH);
    expect(await audit(w.page)).toEqual([]);
    expect(await scrollWidth(w.page)).toBeLessThanOrEqual(360);

    // English one tap away: the same refusal, in English.
    await w.page.getByRole('button', { name: 'English' }).click();
    await w.page.getByRole('button', { name: 'Save', exact: true }).click();
    await w.page.getByText('A colour written #rrggbb, e.g. #0f6cbd.').waitFor();
    await w.page.getByRole('button', { name: 'Français' }).click();
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it('uploads a logo chosen as a file: shrunk, served from the platform, shown in the portal', async () => {
    const w = await open();
    await logIn(w.page, await resellerPhone());
    await w.page.getByRole('link', { name: 'Hotspots' }).click();
    const file = w.page.getByLabel('Logo : une image (PNG, JPEG ou WebP), réduite avant l’envoi');

    // Not an image, whatever its name says.
    const fake = join(tmpdir(), `fake-${randomUUID()}.png`);
    writeFileSync(fake, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await file.setInputFiles(fake);
    await w.page.getByText('Ce fichier n’est pas une image PNG, JPEG ou WebP.').waitFor();

    // A 1200 x 600 photo-sized PNG: the browser shrinks it to 256 px before it is sent.
    const big = new PNG({ width: 1200, height: 600 });
    for (let i = 0; i < big.data.length; i += 4) {
      const x = (i / 4) % 1200;
      big.data[i] = x % 256;
      big.data[i + 1] = 120;
      big.data[i + 2] = 200;
      big.data[i + 3] = 255;
    }
    const path = join(tmpdir(), `logo-${randomUUID()}.png`);
    writeFileSync(path, PNG.sync.write(big));
    await file.setInputFiles(path);
    await w.page.getByText('Logo enregistré : vos clients le voient sur le portail.').waitFor();
    const now = w.page.locator('img.logo-now');
    await now.waitFor();
    await expect
      .poll(() => now.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(256);
    expect(await now.getAttribute('src')).toMatch(
      new RegExp(`^${edge.apiUrl}/api/v1/branding/${reseller.nasId}/logo/[\\w-]{16}$`),
    );
    // The portal in its frame loads it from its own origin.
    const frame = w.page.frameLocator('iframe.portal');
    await expect
      .poll(() =>
        frame.locator('#logo').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      )
      .toBe(256);
    expect(await frame.locator('#logo').getAttribute('src')).toMatch(/^\/api\/v1\/branding\//);
    expect(await audit(w.page)).toEqual([]);
    expect(await scrollWidth(w.page)).toBeLessThanOrEqual(360);
    await w.page.locator('.branding').scrollIntoViewIfNeeded();
    await shot(w.page, 'logo-upload');
    expect(w.problems).toEqual([]);
    await w.context.close();
  });

  it('shows the statement with the reseller’s name, the month in words and its sales, no id', async () => {
    const w = await open();
    await logIn(w.page, await resellerPhone());
    await w.page.getByRole('link', { name: 'Relevés' }).click();
    const statement = w.page.locator('section.statement');
    // The name and the month's sales arrive with their own answers.
    await statement.getByText(reseller.name, { exact: false }).waitFor();
    await expect.poll(() => statement.locator('[data-field="sales_count"]').innerText()).not.toBe('…');
    const text = await statement.innerText();
    expect(text).toContain(reseller.name);
    expect(text).not.toContain(reseller.id);
    const month = new Date().toLocaleDateString('fr-FR', { month: 'long', year: 'numeric', timeZone: 'UTC' });
    expect(text).toContain(`Relevé de ${month}`);
    expect(text).toContain('Ventes');
    expect(text).toContain('Connexions Wi-Fi ouvertes');
    expect(await audit(w.page)).toEqual([]);
    expect(await scrollWidth(w.page)).toBeLessThanOrEqual(360);
    await shot(w.page, 'statement');
    await w.context.close();
  });
});

describe('the portal with a logo that does not load', () => {
  it('never shows a broken image: the reseller’s name stays, the logo goes', async () => {
    const id = randomUUID();
    const name = `Logo Cassé ${id.slice(0, 6)}`;
    await recordReseller({ resellerId: id, name, country: 'CI' });
    const vlan = await api('POST', '/api/v1/network/vlan/allocate', admin, {
      reseller_id: id,
      reseller_name: name,
      site_count: 1,
    });
    expect(vlan.status).toBe(201);
    const nas = String(vlan.body.nas_id);
    // A logo on a host that never answers (this test's browser reaches no other host).
    const put = await api('PUT', `/api/v1/branding/${nas}`, await tokenFor('reseller', { resellerId: id }), {
      logo_url: 'https://logo.unreachable.example/awa.png',
    });
    expect(put.status).toBe(200);
    const w = await open();
    await w.page.goto(`${edge.apiUrl}/portal/${nas}`);
    await w.page.locator('#logo').waitFor({ state: 'hidden' });
    expect(await w.page.locator('header .brand').innerText()).toBe(name);
    expect(await w.page.locator('header .brand').isVisible()).toBe(true);
    expect(await audit(w.page)).toEqual([]);
    await shot(w.page, 'portal-broken-logo');
    await w.context.close();
  });
});

describe('the operator, at 360 px', () => {
  it('lands on the Journal a link pointed at, reads it as sentences, filters it by reseller and kind', async () => {
    const owner = await tokenFor('reseller', { resellerId: reseller.id });
    const made = await api('POST', '/api/v1/vouchers/batches', owner, {
      forfait_id: forfait.id,
      reseller_id: reseller.id,
      n: 30,
    });
    expect(made.status).toBe(201);
    const forOther = await api('POST', '/api/v1/vouchers/generate', admin, {
      forfait_id: forfait.id,
      reseller_id: reseller.id,
      n: 3,
    });
    expect(forOther.status).toBe(201);

    const msisdn = newMsisdn();
    await upsertOperator({ msisdn, role: 'admin' });
    const w = await open();
    await logIn(w.page, msisdn, '/console#activity');
    await w.page.getByRole('heading', { name: 'Journal', level: 1 }).waitFor();
    expect(new URL(w.page.url()).hash).toBe('#activity');

    await w.page.getByLabel('Revendeur').selectOption({ label: reseller.name });
    const sentence = `${reseller.name} a généré 30 codes ${forfait.name}`;
    await w.page.getByText(sentence).waitFor();
    await w.page.getByText(`L’opérateur a généré 3 codes ${forfait.name} pour ${reseller.name}`).waitFor();
    const rows = w.page.locator('ul.activity li');
    for (const row of await rows.allInnerTexts()) expect(row).toContain(reseller.name);
    expect(await pageText(w.page)).not.toMatch(/\/api\/v1|[0-9a-f]{8}-[0-9a-f]{4}-/);

    await w.page.getByLabel('Type').selectOption({ label: 'Hotspots et routeurs' });
    await expect.poll(() => w.page.getByText(sentence).count()).toBe(0);
    await w.page.getByLabel('Type').selectOption({ label: 'Codes' });
    await w.page.getByText(sentence).waitFor();
    expect(await audit(w.page)).toEqual([]);
    expect(await scrollWidth(w.page)).toBeLessThanOrEqual(360);
    await shot(w.page, 'operator-activity');

    // The canary's state in words, no English.
    await w.page.getByRole('link', { name: 'État' }).click();
    await w.page.getByRole('heading', { name: 'Sonde (canary)' }).waitFor();
    await w.page.locator('.badge').first().waitFor();
    expect(await pageText(w.page)).not.toMatch(NO_ENGLISH);

    // Codes for a reseller picked by its name: no id to type.
    await w.page.getByRole('link', { name: 'Codes' }).click();
    await w.page.getByLabel('Revendeur').selectOption({ label: reseller.name });
    await w.page.getByLabel('Nombre de codes').fill('5');
    await w.page.getByRole('button', { name: 'Générer des codes' }).click();
    await w.page.getByText('5 codes générés.').waitFor();
    expect(await audit(w.page)).toEqual([]);
    expect(await scrollWidth(w.page)).toBeLessThanOrEqual(360);
    await shot(w.page, 'operator-codes');
    expect(w.problems).toEqual([]);
    await w.context.close();
  });
});
