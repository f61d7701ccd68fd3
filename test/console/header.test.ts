import { randomUUID } from 'node:crypto';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertOperator } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, openPhone, scrollWidth } from '../support/console.js';
import { call, login, newMsisdn, useLocalServer } from '../support/http.js';

/**
 * The console's header names whose session it is as a person reads it: the reseller's business,
 * the agent's name, "Opérateur"; the number in the national form of the reseller's country,
 * never the raw international one. 360 px, axe clean.
 */
const server = useLocalServer();
let browser: Browser;
const resellerId = randomUUID();
const resellerPhone = newMsisdn();
/** "+22507xxxxxxxx" as written in Côte d'Ivoire: "07 …", the same digits. */
const national = (msisdn: string) => msisdn.slice(4);
const digits = (text: string) => text.replace(/\D/g, '');

beforeAll(async () => {
  browser = await chromium.launch(CHROMIUM);
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  await upsertOperator({ msisdn: resellerPhone, role: 'reseller', resellerId });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the console header', () => {
  it("names a reseller by its business, with its number as written in Côte d'Ivoire", async () => {
    const { context, page, problems } = await openPhone(browser);
    await logInConsole(page, server.url(), resellerPhone);
    const who = page.getByTestId('who');
    await expect.poll(() => who.innerText()).toContain('Chez Awa');
    const text = await who.innerText();
    expect(text).not.toContain('+');
    expect(text).toMatch(/07 \d\d/);
    expect(digits(text)).toBe(national(resellerPhone));
    expect(await audit(page)).toEqual([]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(360);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("names an agent by its name, and an operator as 'Opérateur'", async () => {
    const owner = await login(server.url(), resellerPhone);
    const agentPhone = newMsisdn();
    const added = await call<{ id: string }>(server.url(), 'POST', '/api/v1/agents', {
      token: owner,
      body: { msisdn: agentPhone, name: 'Boutique Kone', commission_bp: 1000 },
    });
    expect(added.status).toBe(201);
    const { context, page, problems } = await openPhone(browser);
    await logInConsole(page, server.url(), agentPhone, `#accept=${added.body.id}`);
    const who = page.getByTestId('who');
    await expect.poll(() => who.innerText()).toContain('Boutique Kone');
    expect(await page.getByTestId('console-title').innerText()).toBe('Espace agent');
    expect(digits(await who.innerText())).toBe(national(agentPhone));
    expect(await who.innerText()).not.toContain('+');
    expect(problems).toEqual([]);
    await context.close();

    const adminPhone = newMsisdn();
    await upsertOperator({ msisdn: adminPhone, role: 'admin' });
    const operator = await openPhone(browser);
    await logInConsole(operator.page, server.url(), adminPhone);
    const header = operator.page.getByTestId('who');
    await expect.poll(() => header.innerText()).toContain('Opérateur');
    expect(await operator.page.getByTestId('console-title').innerText()).toBe('Console opérateur');
    expect(digits(await header.innerText())).toBe(national(adminPhone));
    expect(await audit(operator.page)).toEqual([]);
    expect(operator.problems).toEqual([]);
    await operator.context.close();
  }, 90_000);
});
