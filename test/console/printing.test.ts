import { randomUUID } from 'node:crypto';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, scrollWidth } from '../support/console.js';
import { call, newMsisdn, tokenFor } from '../support/http.js';
import { type EdgeContext, edgeStack } from '../support/radius.js';

/**
 * Codes and their printing in the console on a 360 px phone, against the run's stack: a batch
 * with its own code length and prefix (the guessing odds said before it is made), printed as A4
 * sheets of 9, 21 and 40 cards (counted per page in the PDF Chromium prints), each card naming
 * the hotspot's Wi-Fi network and how to connect; the print button in view when the sheet opens.
 */
let edge: EdgeContext;
let browser: Browser;
let owner = '';
const reseller = { id: randomUUID(), nasId: '', ssid: '' };
const forfait = SEED_FORFAITS.find((f) => f.name === 'Pass Jour') as (typeof SEED_FORFAITS)[number];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.SMS_OUTBOX = edge.smsOutbox;
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  browser = await chromium.launch(CHROMIUM);
  const name = `Chez Awa ${reseller.id.slice(0, 6)}`;
  await recordReseller({ resellerId: reseller.id, name, country: 'CI' });
  const vlan = await call<{ nas_id: string; ssid: string }>(
    edge.apiUrl,
    'POST',
    '/api/v1/network/vlan/allocate',
    {
      body: { reseller_id: reseller.id, reseller_name: name, site_count: 1 },
      token: await tokenFor('admin'),
    },
  );
  expect(vlan.status).toBe(201);
  reseller.nasId = vlan.body.nas_id;
  reseller.ssid = vlan.body.ssid;
  owner = await tokenFor('reseller', { resellerId: reseller.id });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

async function logIn(page: Page): Promise<void> {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role: 'reseller', resellerId: reseller.id });
  await logInConsole(page, edge.apiUrl, msisdn);
  await page.getByRole('link', { name: 'Codes' }).click();
}

/** The pages of a PDF and the size of its first (PDF points). */
function pdfPages(pdf: Buffer): { pages: number; size: number[] } {
  const text = pdf.toString('latin1');
  const pages = (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
  const box = /\/MediaBox\s*\[\s*([\d.\s-]+)\]/.exec(text)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  return { pages, size: box.slice(2) };
}

const batch = (body: Record<string, unknown>) =>
  call<{ error?: { code: string }; items?: { code: string }[] }>(
    edge.apiUrl,
    'POST',
    '/api/v1/vouchers/batches',
    { body: { forfait_id: forfait.id, reseller_id: reseller.id, n: 1, ...body }, token: owner },
  );

describe('codes of a chosen length and prefix', () => {
  it('refuses a prefix or a length that leaves fewer than 8 random characters, or a look-alike, and makes nothing', async () => {
    for (const wrong of [
      { code_length: 8, prefix: 'AWAB' },
      { code_length: 9, prefix: 'AW' },
      { prefix: 'AWA' },
      { code_length: 13 },
      { code_length: 7 },
      { prefix: 'AWO' },
      { prefix: 'ABCDE', code_length: 12 },
    ]) {
      const a = await batch(wrong);
      expect(a.status, JSON.stringify(wrong)).toBe(400);
      expect(a.body.error?.code).toBe('ERR_VALIDATION');
    }
    const stock = await call<{ items: unknown[] }>(
      edge.apiUrl,
      'GET',
      `/api/v1/vouchers?reseller_id=${reseller.id}&status=active&page_size=100`,
      { token: owner },
    );
    expect(stock.body.items).toHaveLength(0);
  });
});

describe('printing a batch, at 360 px', () => {
  it('makes 41 codes "AW" + 8, says the odds first, prints them 9, 21 and 40 to an A4 page with the Wi-Fi name', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await logIn(page);
    await page.getByLabel('Nombre de codes').fill('41');
    await page.getByLabel('Longueur des codes').selectOption('10');
    await page.getByLabel('Préfixe (facultatif, 4 caractères au plus)').fill('awab');
    // 4 + 6: too few drawn at random: said, and the button is off.
    await expect.poll(() => page.getByTestId('code-odds').innerText()).toContain('Au moins 8 caractères');
    expect(await page.getByRole('button', { name: 'Générer des codes' }).isDisabled()).toBe(true);
    await page.getByLabel('Préfixe (facultatif, 4 caractères au plus)').fill('aw');
    // 31^8 / 41: one chance in about 20.8 billion.
    await expect
      .poll(() => page.getByTestId('code-odds').innerText())
      .toMatch(/8 caractères tirés au hasard : une chance sur 20,8 milliards/);
    expect(await audit(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    await page.getByRole('button', { name: 'Générer des codes' }).click();
    await page.getByText('41 codes générés.').waitFor();

    const stock = await call<{ items: { code: string }[] }>(
      edge.apiUrl,
      'GET',
      `/api/v1/vouchers?reseller_id=${reseller.id}&status=active&page_size=100`,
      { token: owner },
    );
    const codes = stock.body.items.map((v) => v.code);
    expect(codes).toHaveLength(41);
    for (const c of codes) expect(c).toMatch(/^AW[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/);

    for (const [option, perPage] of [
      ['A4, 9 cartes par page', 9],
      ['A4, 21 cartes par page', 21],
      ['A4, 40 cartes par page', 40],
    ] as const) {
      await page.getByLabel("Format d'impression").selectOption({ label: option });
      await page.locator('.batches li.new').getByRole('button', { name: 'Imprimer', exact: true }).click();
      await page.getByTestId('print-sheet').waitFor();
      // The print button is on screen as the sheet opens, and stays there (sticky) when scrolled.
      const button = page.getByRole('button', { name: 'Imprimer', exact: true });
      const inView = async () => {
        const box = await button.boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 740;
      };
      expect(await inView()).toBe(true);
      await page.mouse.wheel(0, 2000);
      await expect.poll(inView).toBe(true);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
      expect(await audit(page)).toEqual([]);
      const cards = page.locator('.voucher');
      expect(await cards.count()).toBe(41);
      const card = await cards.first().innerText();
      expect(card).toContain(reseller.ssid);
      expect(card).toContain('Rejoignez ce Wi-Fi');
      expect(card).toMatch(/\d+\u00a0FCFA/);
      // On paper: A4 pages of `perPage` cards each (41 cards: the last page holds the rest).
      const pdf = pdfPages(await page.pdf({ preferCSSPageSize: true, printBackground: true }));
      expect(pdf.pages, option).toBe(Math.ceil(41 / perPage));
      expect(pdf.size.map(Math.round)).toEqual([595, 842]);
      expect(await page.locator('.sheet .page').first().locator('.voucher').count()).toBe(perPage);
      await page.getByRole('button', { name: 'Retour' }).click();
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
