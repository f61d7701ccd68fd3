import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { give } from '../../functions/agents/handovers.js';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { resetConfig } from '../../functions/core/config.js';
import { setDdb } from '../../functions/core/ddb.js';
import { Access, getAccessCode } from '../../functions/store/access-codes.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { getAgent, NEW_AGENT_BOOKS } from '../../functions/store/agents.js';
import { Nas } from '../../functions/store/nas.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { salesBetween } from '../../functions/store/sales.js';
import { acceptedAgent } from '../support/agents.js';

const TEST_ADMIN = { role: 'admin', sub: 'topups', ref: 'SUB-1', exp: 0 } as const;

import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, openPhone, scrollWidth } from '../support/console.js';
import { newMsisdn } from '../support/http.js';
import { type EdgeContext, edgeStack } from '../support/radius.js';

/**
 * "Recharger un code" on the Codes screen, on a 360 px phone against the run's stack: a
 * reseller tops up a guest's used-up code with Pass Jour after a confirm step; the code's end and
 * the day's books follow. French first, English one tap away, axe clean.
 */
let edge: EdgeContext;
let browser: Browser;
const reseller = { id: randomUUID(), nasId: '' };
const day = SEED_FORFAITS[2] as (typeof SEED_FORFAITS)[number];

beforeAll(async () => {
  edge = await edgeStack();
  process.env.SMS_OUTBOX = edge.smsOutbox;
  process.env.TABLE_NAME = edge.table;
  resetConfig();
  setDdb(undefined);
  browser = await chromium.launch(CHROMIUM);
  await recordReseller({
    resellerId: reseller.id,
    name: `Chez Awa ${reseller.id.slice(0, 6)}`,
    country: 'CI',
  });
  reseller.nasId = `access_topup_${Date.now().toString(36)}`;
  await Nas.put({
    nas_id: reseller.nasId,
    reseller_id: reseller.id,
    reseller_name: 'Chez Awa',
    vlan_id: 10,
    kind: 'vlan',
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

async function logIn(page: Page, agentPhone?: string): Promise<void> {
  const msisdn = agentPhone ?? newMsisdn();
  if (!agentPhone) await upsertOperator({ msisdn, role: 'reseller', resellerId: reseller.id });
  await logInConsole(page, edge.apiUrl, msisdn);
}

/** A guest's code whose hour ran out an hour ago. */
async function usedUpCode(): Promise<string> {
  const code = `TU${randomUUID().replace(/-/g, '').slice(0, 8).toUpperCase()}`;
  const now = Date.now();
  await Access.put({
    code,
    reseller_id: reseller.id,
    source: 'payment',
    source_id: randomUUID(),
    forfait_id: SEED_FORFAITS[0]?.id as string,
    offer: { duration_hours: 1, data_limit_mb: 300, cir_kbps: 512, mir_kbps: 2048, max_devices: 1 },
    created_at: new Date(now - 7200_000).toISOString(),
    started_at: new Date(now - 7200_000).toISOString(),
    expires_at: new Date(now - 3600_000).toISOString(),
    last_nas_id: reseller.nasId,
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  });
  return code;
}

describe('a top-up, in the console at 360 px', () => {
  it('tops up a used-up code after a confirm step; the code and the books follow; axe clean; English one tap away', async () => {
    const { context, page, problems } = await openPhone(browser);
    await logIn(page);
    await page.getByRole('link', { name: 'Codes', exact: true }).click();
    const card = page.getByRole('region', { name: 'Recharger un code' });
    await card.waitFor();
    const select = card.getByLabel('Recharge à ajouter');
    await select.locator('option').first().waitFor({ state: 'attached' });

    // A code that is not the reseller's: said in French, nothing asked of the books.
    await card.getByLabel('Code du client').fill('ZZZZ ZZZZ ZZ');
    await card.getByRole('button', { name: 'Recharger' }).click();
    await card.getByRole('button', { name: 'Oui, recharger' }).click();
    await card.getByText('Code inconnu chez vous.').waitFor();

    const code = await usedUpCode();
    const typed = `${code.slice(0, 4).toLowerCase()} ${code.slice(4)}`;
    await card.getByLabel('Code du client').fill(typed);
    await select.selectOption(day.id);
    await card.getByRole('button', { name: 'Recharger' }).click();
    const question = card.getByText(/^Recharger le code .* avec Pass Jour pour 300\sFCFA \?$/);
    await question.waitFor();
    expect(await audit(page)).toEqual([]);
    const before = Date.now();
    await card.getByRole('button', { name: 'Oui, recharger' }).click();
    await card.getByRole('status').filter({ hasText: 'rechargé (Pass Jour, 300 FCFA)' }).waitFor();
    await page.screenshot({ path: join(tmpdir(), 'console-topup.png') });
    const stored = await getAccessCode(code);
    expect(Date.parse(stored?.expires_at ?? '')).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 5000);
    expect(stored?.topups).toBe(1);
    const today = new Date().toISOString().slice(0, 10);
    const [books] = await salesBetween(reseller.id, today, today);
    expect(books).toMatchObject({ total_fcfa: 300, by_channel: { counter: 300 } });
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    expect(await audit(page)).toEqual([]);

    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('region', { name: 'Top up a code' }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    // The browser's own line for the unknown code (a 404 the test asked for) is the only one.
    expect(problems.filter((p) => !p.includes('status of 404'))).toEqual([]);
    await context.close();
  });

  it("an agent tops up a guest's code from its float, on its Sell screen; its float left is said", async () => {
    const phone = newMsisdn();
    const id = randomUUID();
    const nowIso = new Date().toISOString();
    await acceptedAgent({
      id,
      reseller_id: reseller.id,
      msisdn: phone,
      commission_bp: 1000,
      ...NEW_AGENT_BOOKS,
      stock: {},
      created_at: nowIso,
    });
    await give(TEST_ADMIN, id, { float_fcfa: 500 });
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await logIn(page, phone);
    const card = page.getByRole('region', { name: 'Recharger un code' });
    await card.waitFor();
    const select = card.getByLabel('Recharge à ajouter');
    await select.locator('option').first().waitFor({ state: 'attached' });
    const code = await usedUpCode();
    await card.getByLabel('Code du client').fill(code);
    await select.selectOption(day.id);
    await card.getByRole('button', { name: 'Recharger' }).click();
    await card.getByRole('button', { name: 'Oui, recharger' }).click();
    await card.getByRole('status').filter({ hasText: 'rechargé (Pass Jour, 300 FCFA)' }).waitFor();
    await card.getByText('Crédit restant : 200 FCFA').waitFor();
    expect((await getAccessCode(code))?.topups).toBe(1);
    expect(await getAgent(id)).toMatchObject({ float_fcfa: 200, sold_fcfa: 300, commission_fcfa: 30 });
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    expect(await audit(page)).toEqual([]);
    // A second Pass Jour is more than the float left: said in French, nothing taken.
    await card.getByLabel('Code du client').fill(code);
    await card.getByRole('button', { name: 'Recharger' }).click();
    await card.getByRole('button', { name: 'Oui, recharger' }).click();
    await card.getByText('Crédit épuisé : demandez une recharge à votre revendeur.').waitFor();
    expect((await getAccessCode(code))?.topups).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
