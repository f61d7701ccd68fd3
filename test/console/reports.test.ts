import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { bookings } from '../../functions/billing/ledger.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { allocateVlan } from '../../functions/network/vlans.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { transact } from '../../functions/store/entity.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, openPhone, scrollWidth } from '../support/console.js';
import { call, newMsisdn, tokenFor } from '../support/http.js';
import { type EdgeContext, edgeStack } from '../support/radius.js';

/**
 * "Rapports" in the console on a 360 px phone, against the run's stack: a reseller's sales of
 * two months (booked by the ledger as every flow books them), read over a range: the totals and
 * each breakdown as the API and the month's statement say, the CSV downloaded, printed without
 * the form; French, then English. The operator reads any reseller's, picked by its name. Axe
 * clean, no sideways scrolling.
 */
let edge: EdgeContext;
let browser: Browser;
const reseller = { id: randomUUID(), nasId: '', agentId: '' };
const pass = SEED_FORFAITS[0] as { id: string; name: string };
const week = SEED_FORFAITS[3] as { id: string; name: string };

beforeAll(async () => {
  edge = await edgeStack();
  process.env.SMS_OUTBOX = edge.smsOutbox;
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  browser = await chromium.launch(CHROMIUM);
  await recordReseller({ resellerId: reseller.id, name: 'Chez Awa', country: 'CI' });
  // Two resellers with a hotspot each: the operator's picker offers both by name.
  reseller.nasId = (
    await allocateVlan({ resellerId: reseller.id, resellerName: 'Chez Awa', siteCount: 1 })
  ).nas_id;
  const other = randomUUID();
  await recordReseller({ resellerId: other, name: 'Maquis Bon Coin', country: 'CI' });
  await allocateVlan({ resellerId: other, resellerName: 'Maquis Bon Coin', siteCount: 1 });
  const owner = await tokenFor('reseller', { resellerId: reseller.id });
  const agent = await call<{ id: string }>(edge.apiUrl, 'POST', '/api/v1/agents', {
    token: owner,
    body: { msisdn: newMsisdn(), name: 'Boutique Gare, quai 2', commission_bp: 1000 },
  });
  reseller.agentId = agent.body.id;
  const base = { resellerId: reseller.id, nasId: reseller.nasId };
  const sales: [Parameters<typeof bookings>[0], string][] = [
    [{ ...base, forfaitId: pass.id, channel: 'mobile_money', amountFcfa: 1000 }, '2025-10-03T10:00:00Z'],
    [
      { resellerId: reseller.id, forfaitId: week.id, channel: 'voucher', amountFcfa: 1500 },
      '2025-10-20T10:00:00Z',
    ],
    [
      {
        ...base,
        forfaitId: pass.id,
        channel: 'cash',
        amountFcfa: 500,
        agent: { id: reseller.agentId, commissionFcfa: 50 },
      },
      '2025-10-21T10:00:00Z',
    ],
    [{ ...base, forfaitId: week.id, channel: 'mobile_money', amountFcfa: 2000 }, '2025-11-02T10:00:00Z'],
  ];
  for (const [sale, at] of sales) {
    const { monthBooks, dayBooks } = bookings(sale, at);
    await transact({ monthBooks, dayBooks });
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** Logs in on the console as a new account of the reseller, or as an operator. */
async function logIn(page: Page, role: 'reseller' | 'admin' = 'reseller'): Promise<void> {
  const msisdn = newMsisdn();
  await upsertOperator({ msisdn, role, ...(role === 'reseller' ? { resellerId: reseller.id } : {}) });
  await logInConsole(page, edge.apiUrl, msisdn);
}
const amount = (n: number) =>
  `${new Intl.NumberFormat('fr-FR').format(n).replace(/\u202f/g, '\u00a0')}\u00a0FCFA`;
/** A statement table's cell by its field, as the screen writes it. */
const cell = (page: Page, table: string, field: string) =>
  page.getByTestId(table).locator(`td[data-field="${field}"]`).innerText();

describe('sales reports, at 360 px', () => {
  it('shows October as its statement, then two months with each breakdown named; CSV; printed alone; in English', async () => {
    const { context, page, problems } = await openPhone(browser, { acceptDownloads: true });
    await logIn(page);
    await page.getByRole('link', { name: 'Rapports' }).click();
    await page.getByTestId('report').waitFor();

    await page.getByLabel('Du').fill('2025-10-01');
    await page.getByLabel('Au').fill('2025-10-31');
    await page.getByRole('button', { name: 'Afficher' }).click();
    await expect.poll(() => page.getByTestId('report').locator('h2').innerText()).toContain('1 oct. 2025');
    const owner = await tokenFor('reseller', { resellerId: reseller.id });
    const statement = await call<{ total_fcfa: number; agents: { commission_fcfa: number } }>(
      edge.apiUrl,
      'GET',
      `/api/v1/billing/summary?reseller_id=${reseller.id}&month=2025-10`,
      { token: owner },
    );
    expect(await cell(page, 'report-totals', 'total')).toBe(amount(statement.body.total_fcfa));
    expect(await cell(page, 'report-totals', 'commission')).toBe(
      amount(statement.body.agents.commission_fcfa),
    );
    expect(await cell(page, 'report-totals', 'count')).toBe('3');
    expect(await cell(page, 'report-agents', reseller.agentId)).toBe(amount(500));
    expect(await page.getByTestId('report-agents').innerText()).toContain('Boutique Gare, quai 2');
    expect(await page.getByTestId('report-channels').innerText()).toContain('Espèces (agents)');
    expect(await page.getByTestId('report-forfaits').innerText()).toContain(week.name);
    // The hotspot by its name, never its NAS id.
    expect(await cell(page, 'report-hotspots', reseller.nasId)).toBe(amount(1500));
    expect(await page.getByTestId('report-hotspots').innerText()).toContain('Chez Awa');
    await expect.poll(() => page.getByTestId('report-hotspots').innerText()).not.toContain(reseller.nasId);
    expect(await audit(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);

    await page.getByLabel('Au').fill('2025-11-30');
    await page.getByRole('button', { name: 'Afficher' }).click();
    await expect.poll(() => cell(page, 'report-totals', 'total')).toBe(amount(5000));
    expect(await cell(page, 'report-forfaits', week.id)).toBe(amount(3500));
    expect(await page.getByTestId('report-days').locator('tr').count()).toBe(4);

    // The CSV: what the screen shows, a line a figure, the agent's name quoted (it has a comma).
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Télécharger le CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('ventes-2025-10-01-2025-11-30.csv');
    // As a French spreadsheet opens it: a byte-order mark, `;`, French words, names, days day first.
    const bytes = readFileSync(await download.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = bytes
      .toString('utf8')
      .replace(/^\ufeff/, '')
      .split('\r\n');
    expect(csv[0]).toBe('Rubrique;Nom;Nombre de ventes;Montant (FCFA)');
    expect(csv[1]).toMatch(/^Total;du 01\/10\/2025 au 30\/11\/2025;\d+;5000$/);
    expect(csv).toContain('Agent;Boutique Gare, quai 2;;500');
    expect(csv.join('\n')).not.toContain(reseller.agentId);

    // On paper: the report alone, without the form and the menus.
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('button', { name: 'Afficher' }).isVisible()).toBe(false);
    expect(await page.getByRole('navigation', { name: 'Menu' }).isVisible()).toBe(false);
    expect(await page.getByTestId('report').isVisible()).toBe(true);
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('button', { name: 'English' }).click();
    await expect
      .poll(() => page.getByTestId('report').locator('h2').innerText())
      .toMatch(/^Sales from 1 Oct 2025/);
    expect(await page.getByTestId('report-channels').innerText()).toContain('Cash (agents)');
    // The English console's CSV stays English, with `,`.
    const [english] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /CSV/ }).click(),
    ]);
    expect(english.suggestedFilename()).toBe('sales-2025-10-01-2025-11-30.csv');
    const en = readFileSync(await english.path(), 'utf8')
      .replace(/^\ufeff/, '')
      .split('\r\n');
    expect(en[0]).toBe('Section,Name,Sales,Amount (FCFA)');
    expect(en).toContain('Agent,"Boutique Gare, quai 2",,500');
    expect(await audit(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('says a range over a year is refused, and shows nothing wrong', async () => {
    const { context, page } = await openPhone(browser);
    await logIn(page);
    await page.getByRole('link', { name: 'Rapports' }).click();
    await page.getByLabel('Du').fill('2024-01-01');
    await page.getByLabel('Au').fill('2025-06-30');
    await page.getByRole('button', { name: 'Afficher' }).click();
    await page.getByRole('alert').filter({ hasText: 'Une période d’un an au plus' }).waitFor();
    expect(await page.getByTestId('report').count()).toBe(0);
    expect(await audit(page)).toEqual([]);
    await context.close();
  }, 60_000);

  it("the operator picks a reseller by its name and reads that reseller's report", async () => {
    const { context, page, problems } = await openPhone(browser);
    await logIn(page, 'admin');
    await page.getByRole('link', { name: 'Rapports' }).click();
    const picker = page.getByLabel('Revendeur');
    await picker.waitFor();
    // Nothing shown before a reseller is picked, and never an id to type.
    expect(await page.getByTestId('report').count()).toBe(0);
    await expect
      .poll(() => picker.locator('option').allInnerTexts())
      .toEqual(expect.arrayContaining(['Choisissez un revendeur', 'Chez Awa', 'Maquis Bon Coin']));
    expect(await picker.inputValue()).toBe('');
    await picker.selectOption({ label: 'Maquis Bon Coin' });
    await page.getByLabel('Du').fill('2025-10-01');
    await page.getByLabel('Au').fill('2025-11-30');
    await page.getByRole('button', { name: 'Afficher' }).click();
    await expect.poll(() => cell(page, 'report-totals', 'total')).toBe(amount(0));

    await picker.selectOption({ label: 'Chez Awa' });
    await expect.poll(() => cell(page, 'report-totals', 'total')).toBe(amount(5000));
    expect(await page.getByTestId('report').innerText()).toContain('Chez Awa');
    expect(await cell(page, 'report-agents', reseller.agentId)).toBe(amount(500));
    expect(await page.getByTestId('report-agents').innerText()).toContain('Boutique Gare, quai 2');
    expect(await audit(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Télécharger le CSV' }).click(),
    ]);
    expect(readFileSync(await download.path(), 'utf8').split('\r\n')[1]).toMatch(
      /^Total;du 01\/10\/2025 au 30\/11\/2025;\d+;5000$/,
    );
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
