import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { allocateVlan } from '../../functions/network/vlans.js';
import { upsertOperator } from '../../functions/store/accounts.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';
import { logInConsole, openPhone, scrollWidth } from '../support/console.js';
import { call, login, newMsisdn, tokenFor, useLocalServer } from '../support/http.js';

/**
 * Agents in a real browser (Debian's chromium through playwright-core) against the local server:
 * a reseller adds an agent and gives it a float; the agent logs in with its SMS code on a 360 px
 * screen and sells two codes, one printed on a 58 mm ticket, one texted; the reseller sees both
 * sales, the commission and the cash owed, and records the cash (and undoes a cash record made
 * by mistake). No console error, axe clean.
 */
const server = useLocalServer();
const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number; name: string };
let browser: Browser;
const resellerId = randomUUID();
const resellerPhone = newMsisdn();
const agentPhone = newMsisdn();
const buyerPhone = newMsisdn();
let nasId = '';

// Amounts as the console writes them: no-break spaces, so that a figure never wraps.
const fcfa = (n: number) =>
  `${new Intl.NumberFormat('fr-FR').format(n).replace(/\u202f/g, '\u00a0')}\u00a0FCFA`;

const open = () => openPhone(browser);
const logIn = (page: Page, msisdn: string, hash = '') => logInConsole(page, server.url(), msisdn, hash);

const smsTo = (msisdn: string) =>
  readFileSync(process.env.SMS_OUTBOX as string, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string; message: string })
    .filter((m) => m.to === msisdn);

beforeAll(async () => {
  browser = await chromium.launch(CHROMIUM);
  await recordReseller({ resellerId, name: 'Chez Awa', country: 'CI' });
  await upsertOperator({ msisdn: resellerPhone, role: 'reseller', resellerId });
  nasId = (await allocateVlan({ resellerId, resellerName: 'Chez Awa', siteCount: 1 })).nas_id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('agents in the console', () => {
  it('a reseller adds an agent and gives it a float; the agent sells a printed and a texted code; the reseller sees the sales and records the cash', async () => {
    // The reseller adds the agent (10 % commission, its hotspot) and gives it a float of two sales.
    const r = await open();
    await logIn(r.page, resellerPhone);
    await r.page.getByRole('link', { name: 'Agents' }).click();
    await r.page.getByLabel("Numéro de l'agent").fill(agentPhone);
    await r.page.getByLabel('Nom').fill('Boutique Kone');
    await r.page.getByLabel('Commission (%)').fill('10');
    await r.page.getByLabel('Hotspot').selectOption(nasId);
    await r.page.getByRole('button', { name: 'Nouvel agent' }).click();
    await r.page.getByText("Invitation envoyée par SMS : l'agent l'accepte avec le lien reçu.").waitFor();
    const card = r.page.getByRole('region', { name: 'Boutique Kone' });
    await card.getByLabel('Donner du crédit (FCFA)').fill(String(2 * forfait.price_fcfa));
    await card.getByRole('button', { name: 'Donner' }).click();
    // Asked first, in words: how much, to whom.
    await card.getByText(`Donner ${fcfa(2 * forfait.price_fcfa)} de crédit à Boutique Kone ?`).waitFor();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card
      .locator('[data-field="float"]')
      .getByText(fcfa(2 * forfait.price_fcfa))
      .waitFor();
    expect(await audit(r.page)).toEqual([]);

    // The agent, on its phone, opens the link of the invitation it was texted and logs in: it
    // accepts, then sells one code and prints its ticket.
    const link = /\/console(#accept=[0-9a-f-]{36})/.exec(smsTo(agentPhone).at(-1)?.message ?? '')?.[1];
    expect(link).toBeDefined();
    const a = await open();
    await logIn(a.page, agentPhone, link);
    expect(await a.page.getByRole('navigation', { name: 'Menu' }).innerText()).toMatch(
      /Vendre[\s\S]*Mon solde/,
    );
    await a.page.getByLabel('Forfait').selectOption(forfait.id);
    await a.page.getByRole('button', { name: 'Vendre' }).click();
    // Asked first, in words, as a handover is: nothing is sold by one tap.
    await a.page.getByText(`Vendre ${forfait.name} pour ${fcfa(forfait.price_fcfa)} ?`).waitFor();
    expect(await audit(a.page)).toEqual([]);
    await a.page.getByRole('button', { name: 'Oui, vendre' }).click();
    // The code grouped by four, as the cards print it.
    const shown = (await a.page.getByTestId('sold-code').innerText()).trim();
    expect(shown).toMatch(/^[A-Z0-9]{4} [A-Z0-9]{4} [A-Z0-9]{2}$/);
    const first = shown.replace(/ /g, '');
    expect(await audit(a.page)).toEqual([]);
    await a.page.getByRole('button', { name: 'Imprimer le ticket' }).click();
    await a.page.emulateMedia({ media: 'print' });
    const ticket = a.page.locator('.sheet.t58 .voucher');
    expect(await ticket.count()).toBe(1);
    expect(await ticket.getAttribute('data-code')).toBe(first);
    expect(await ticket.innerText()).toContain(fcfa(forfait.price_fcfa));
    expect(await a.page.getByRole('navigation', { name: 'Menu' }).isVisible()).toBe(false);
    // On paper the ticket is no wider than a 58 mm roll (219 CSS px).
    const width = await ticket.evaluate(
      (e) => (e as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width,
    );
    expect(width).toBeLessThanOrEqual(220);
    await a.page.emulateMedia({ media: 'screen' });
    await a.page.getByRole('button', { name: 'Retour' }).click();

    // The second code is texted to the buyer.
    await a.page
      .getByLabel("Numéro de l'acheteur pour lui envoyer le code par SMS (facultatif)")
      .fill(buyerPhone);
    await a.page.getByRole('button', { name: 'Vendre' }).click();
    await a.page.getByText(/^Vendre .* et envoyer le code au /).waitFor();
    await a.page.getByRole('button', { name: 'Oui, vendre' }).click();
    await a.page.getByText(/Code envoyé par SMS au/).waitFor();
    const second = (await a.page.getByTestId('sold-code').innerText()).trim().replace(/ /g, '');
    expect(second).not.toBe(first);
    const texts = smsTo(buyerPhone);
    expect(texts).toHaveLength(1);
    expect(texts[0]?.message.replace(/ /g, '')).toContain(second);
    // A third sale: the float is used up, said in French.
    await a.page.getByRole('button', { name: 'Vendre' }).click();
    await a.page.getByRole('button', { name: 'Oui, vendre' }).click();
    await a.page.getByText('Crédit épuisé : demandez une recharge à votre revendeur.').waitFor();

    // Mon solde: two sales, 10 % commission, the rest owed to the reseller.
    const commission = 2 * Math.round(forfait.price_fcfa / 10);
    const owed = 2 * forfait.price_fcfa - commission;
    await a.page.getByRole('link', { name: 'Mon solde' }).click();
    await a.page.getByTestId('owed').getByText(fcfa(owed), { exact: true }).waitFor();
    expect(await a.page.getByRole('region', { name: "Aujourd'hui" }).innerText()).toContain(fcfa(commission));
    expect(await audit(a.page)).toEqual([]);

    // The reseller sees both sales, the commission and the cash owed, and records the cash.
    await r.page.reload();
    await r.page.getByRole('navigation', { name: 'Menu' }).waitFor();
    const row = r.page.getByRole('region', { name: 'Boutique Kone' });
    await row.locator('[data-field="owed"]').getByText(fcfa(owed), { exact: true }).waitFor();
    expect(await row.locator('[data-field="commission"]').innerText()).toBe(fcfa(commission));
    await row.getByText('Ventes de Boutique Kone').click();
    await row.locator(`li[data-code="${first}"]`).waitFor();
    await row.locator(`li[data-code="${second}"]`).waitFor();
    // Sales opened, the page still fits a 360 px phone (it was 415 px with a table).
    expect(await scrollWidth(r.page)).toBeLessThanOrEqual(360);
    await row.getByLabel('Encaisser (FCFA)').fill(String(owed));
    await row.getByRole('button', { name: 'Enregistrer' }).click();
    await row.getByRole('button', { name: 'Oui, confirmer' }).click();
    await row.locator('[data-field="owed"]').getByText(fcfa(0), { exact: true }).waitFor();
    expect(await row.locator('[data-field="cash-received"]').innerText()).toBe(fcfa(owed));
    expect(await audit(r.page)).toEqual([]);

    // The billing summary counts both sales, with the agents' share beside the spec's fields.
    const owner = await tokenFor('reseller', { resellerId });
    const res = await fetch(
      `${server.url()}/api/v1/billing/summary?reseller_id=${resellerId}&month=${new Date().toISOString().slice(0, 7)}`,
      { headers: { authorization: `Bearer ${owner}` } },
    );
    expect(await res.json()).toMatchObject({
      total_fcfa: 2 * forfait.price_fcfa,
      agents: { sold_fcfa: 2 * forfait.price_fcfa, commission_fcfa: commission },
    });
    expect(r.problems).toEqual([]);
    // The one refusal asked for (the third sale, float used up): Chromium logs every 4xx answer.
    expect(a.problems).toEqual([
      'error: Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    await r.context.close();
    await a.context.close();
  }, 120_000);

  it("a cashier's sale is asked first and undone within minutes: float back, code revoked, marked in the reseller's list", async () => {
    const owner = await tokenFor('reseller', { resellerId });
    const msisdn = newMsisdn();
    const made = await call(server.url(), 'POST', '/api/v1/agents', {
      token: owner,
      body: { msisdn, name: 'Kiosque Marché', commission_bp: 1000 },
    });
    const id = (made.body as { id: string }).id;
    await call(server.url(), 'POST', `/api/v1/agents/${id}/accept`, {
      token: await login(server.url(), msisdn),
    });
    await call(server.url(), 'POST', `/api/v1/agents/${id}/allot`, {
      token: owner,
      body: { float_fcfa: forfait.price_fcfa },
    });
    const a = await open();
    await logIn(a.page, msisdn);
    await a.page.getByLabel('Forfait').selectOption(forfait.id);
    await a.page.getByRole('button', { name: 'Vendre' }).click();
    // "Annuler" at the question sells nothing.
    await a.page.getByRole('button', { name: 'Annuler', exact: true }).click();
    expect(await a.page.getByTestId('sold-code').count()).toBe(0);
    await a.page.getByRole('button', { name: 'Vendre' }).click();
    await a.page.getByRole('button', { name: 'Oui, vendre' }).click();
    const code = (await a.page.getByTestId('sold-code').innerText()).trim().replace(/ /g, '');
    await a.page.getByText(`Crédit restant : ${fcfa(0)}`).waitFor();
    await a.page.screenshot({ path: join(tmpdir(), 'console-agent-sale.png') });
    await a.page.getByRole('button', { name: 'Annuler cette vente' }).click();
    await a.page
      .getByRole('status')
      .filter({ hasText: `Vente annulée : le code ${code.replace(/(.{4})(?=.)/g, '$1 ')} ne marche plus` })
      .waitFor();
    await a.page.getByText(`Crédit restant : ${fcfa(forfait.price_fcfa)}`).waitFor();
    expect(await a.page.getByRole('button', { name: 'Annuler cette vente' }).count()).toBe(0);
    expect(await a.page.getByRole('button', { name: 'Imprimer le ticket' }).count()).toBe(0);
    expect(await scrollWidth(a.page)).toBeLessThanOrEqual(360);
    expect(await audit(a.page)).toEqual([]);
    await a.page.screenshot({ path: join(tmpdir(), 'console-agent-sale-undone.png') });
    const revoked = await call(server.url(), 'GET', `/api/v1/agents/${id}`, { token: owner });
    expect(revoked.body).toMatchObject({
      agent: { float_fcfa: forfait.price_fcfa, owed_fcfa: 0, sales_count: 0 },
    });

    // The reseller's list keeps the sale, marked undone, at 360 px.
    const r = await open();
    await logIn(r.page, resellerPhone);
    await r.page.getByRole('link', { name: 'Agents' }).click();
    const card = r.page.getByRole('region', { name: 'Kiosque Marché' });
    await card.getByText('Ventes de Kiosque Marché').click();
    await card.locator(`li.undone[data-code="${code}"]`).getByText('(vente annulée)').waitFor();
    expect(await scrollWidth(r.page)).toBeLessThanOrEqual(360);
    expect(await audit(r.page)).toEqual([]);
    await r.page.screenshot({ path: join(tmpdir(), 'console-agents-sales.png'), fullPage: true });
    expect(a.problems).toEqual([]);
    await a.context.close();
    await r.context.close();
  }, 120_000);

  it("handovers: asked, undone within minutes, in a history; float moved to another agent and back; a cashier finds today's sale", async () => {
    const owner = await tokenFor('reseller', { resellerId });
    const api = (method: string, path: string, token: string, body?: unknown) =>
      call(server.url(), method, path, { token, ...(body !== undefined ? { body } : {}) });
    const agent = async (name: string) => {
      const msisdn = newMsisdn();
      const made = await api('POST', '/api/v1/agents', owner, { msisdn, name, commission_bp: 1000 });
      const id = (made.body as { id: string }).id;
      const ok = await api('POST', `/api/v1/agents/${id}/accept`, await login(server.url(), msisdn));
      return { id, msisdn, token: (ok.body as { session_token: string }).session_token };
    };
    const mariam = await agent('Mariam');
    await agent('Kiosque Gare');

    const r = await open();
    await logIn(r.page, resellerPhone);
    await r.page.getByRole('link', { name: 'Agents' }).click();
    const card = r.page.getByRole('region', { name: 'Mariam' });
    // A float given by mistake (5 000 for 500): asked, then undone.
    await card.getByLabel('Donner du crédit (FCFA)').fill('5000');
    await card.getByRole('button', { name: 'Donner' }).click();
    await card.getByText(`Donner ${fcfa(5000)} de crédit à Mariam ?`).waitFor();
    await card.screenshot({ path: join(tmpdir(), 'console-agent-confirm.png') });
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.locator('[data-field="float"]').getByText(fcfa(5000)).waitFor();
    await card.getByText('Enregistré. Vous pouvez annuler pendant 5 minutes.').waitFor();
    await card.getByRole('button', { name: 'Annuler cette opération' }).click();
    await card.getByText('Opération annulée : soldes rétablis.').waitFor();
    await card.locator('[data-field="float"]').getByText(fcfa(0)).waitFor();
    // Asked, and declined: nothing given.
    await card.getByLabel('Donner du crédit (FCFA)').fill('500');
    await card.getByRole('button', { name: 'Donner' }).click();
    await card.getByRole('button', { name: 'Annuler', exact: true }).click();
    await card.getByLabel('Donner du crédit (FCFA)').fill('1000');
    await card.getByRole('button', { name: 'Donner' }).click();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.locator('[data-field="float"]').getByText(fcfa(1000)).waitFor();

    // 300 of it moved to the other agent, 200 taken back by the reseller.
    await card.getByText('Déplacer du crédit ou des codes').click();
    await card.getByLabel('Vers').selectOption({ label: 'Kiosque Gare' });
    await card.getByLabel('Montant (FCFA) ou nombre de codes').fill('300');
    await card.getByRole('button', { name: 'Déplacer' }).click();
    await card.getByText(`Déplacer ${fcfa(300)} de Mariam vers : Kiosque Gare ?`).waitFor();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.locator('[data-field="float"]').getByText(fcfa(700)).waitFor();
    await r.page
      .getByRole('region', { name: 'Kiosque Gare' })
      .locator('[data-field="float"]')
      .getByText(fcfa(300))
      .waitFor();
    await card.getByLabel('Vers').selectOption('');
    await card.getByLabel('Montant (FCFA) ou nombre de codes').fill('200');
    await card.getByRole('button', { name: 'Déplacer' }).click();
    await card.getByText(`Déplacer ${fcfa(200)} de Mariam vers : Le revendeur (reprise) ?`).waitFor();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.locator('[data-field="float"]').getByText(fcfa(500)).waitFor();

    // Codes of a forfait given (by the API), two of them moved to the other agent from the card.
    await api('POST', `/api/v1/agents/${mariam.id}/allot`, owner, { forfait_id: forfait.id, count: 5 });
    await r.page.reload();
    await r.page.getByRole('navigation', { name: 'Menu' }).waitFor();
    await card.getByText('Déplacer du crédit ou des codes').click();
    await card.getByLabel('Vers').selectOption({ label: 'Kiosque Gare' });
    await card.getByLabel('Quoi').selectOption({ label: `${forfait.name} (5 codes)` });
    await card.getByLabel('Montant (FCFA) ou nombre de codes').fill('2');
    await card.getByRole('button', { name: 'Déplacer' }).click();
    await card.getByText('Déplacer 2 codes de Mariam vers : Kiosque Gare ?').waitFor();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.getByText('Enregistré. Vous pouvez annuler pendant 5 minutes.').waitFor();
    await card
      .getByLabel('Quoi')
      .locator('option', { hasText: `${forfait.name} (3 codes)` })
      .waitFor({ state: 'attached' });

    // The history, newest first, the undone one marked.
    await card.getByText('Remises et reprises').click();
    const items = card.locator('ul.history li');
    await items.nth(5).waitFor();
    const lines = await items.allInnerTexts();
    expect(lines.map((l) => l.replace(/^\S+ \S+ /, ''))).toEqual([
      `Déplacé vers Kiosque Gare · 2 codes ${forfait.name}`,
      `Donné · 5 codes ${forfait.name}`,
      `Repris par le revendeur · ${fcfa(200)}`,
      `Déplacé vers Kiosque Gare · ${fcfa(300)}`,
      `Donné · ${fcfa(1000)}`,
      `Donné · ${fcfa(5000)} (annulée)`,
    ]);
    expect(await audit(r.page)).toEqual([]);
    const scroll = await r.page.evaluate('document.documentElement.scrollWidth');
    expect(scroll).toBeLessThanOrEqual(360);
    await card.screenshot({ path: join(tmpdir(), 'console-agent-handovers.png') });

    // The cashier finds a sale of today by the buyer's number as written locally.
    const buyer = newMsisdn();
    const sold = await api('POST', `/api/v1/agents/${mariam.id}/sales`, mariam.token, {
      forfait_id: forfait.id,
      send_to: buyer,
    });
    const code = (sold.body as { sale: { code: string } }).sale.code;
    const a = await open();
    await logIn(a.page, mariam.msisdn);
    const local = `07 ${buyer.slice(-8, -6)} ${buyer.slice(-6, -4)} ${buyer.slice(-4, -2)} ${buyer.slice(-2)}`;
    await a.page.getByLabel("Retrouver une vente du jour (code ou numéro de l'acheteur)").fill(local);
    await a.page.getByRole('button', { name: 'Chercher' }).click();
    await a.page.locator(`li[data-code="${code}"]`).waitFor();
    await a.page.getByLabel("Retrouver une vente du jour (code ou numéro de l'acheteur)").fill('ZZZZ99');
    await a.page.getByRole('button', { name: 'Chercher' }).click();
    await a.page.getByText('Aucune vente du jour ne correspond.').waitFor();
    expect(await audit(a.page)).toEqual([]);
    expect(await a.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await a.page.screenshot({ path: join(tmpdir(), 'console-agent-find-sale.png'), fullPage: true });
    // The agent reads its own handovers on Mon solde.
    await a.page.getByRole('link', { name: 'Mon solde' }).click();
    await a.page.locator('ul.history li').nth(5).waitFor();
    expect(await a.page.locator('ul.history li').first().innerText()).toContain(
      'Déplacé vers un autre agent · 2 codes',
    );
    expect(await audit(a.page)).toEqual([]);
    await a.page.screenshot({ path: join(tmpdir(), 'console-agent-balance.png'), fullPage: true });
    expect(r.problems).toEqual([]);
    expect(a.problems).toEqual([]);
    await r.context.close();
    await a.context.close();
  }, 120_000);

  it('a reseller records cash received from an agent, sees it confirmed, undoes it: the history marks it undone, the balance is restored', async () => {
    const owner = await tokenFor('reseller', { resellerId });
    const msisdn = newMsisdn();
    const made = await call<{ id: string }>(server.url(), 'POST', '/api/v1/agents', {
      token: owner,
      body: { msisdn, name: 'Cabine Adjamé', commission_bp: 1000 },
    });
    const id = made.body.id;
    const accepted = await call<{ session_token: string }>(
      server.url(),
      'POST',
      `/api/v1/agents/${id}/accept`,
      {
        token: await login(server.url(), msisdn),
      },
    );
    // Two sales on a float of two: the agent owes its reseller the price less its commission.
    await call(server.url(), 'POST', `/api/v1/agents/${id}/allot`, {
      token: owner,
      body: { float_fcfa: 2 * forfait.price_fcfa },
    });
    for (let i = 0; i < 2; i++) {
      const sold = await call(server.url(), 'POST', `/api/v1/agents/${id}/sales`, {
        token: accepted.body.session_token,
        body: { forfait_id: forfait.id },
      });
      expect(sold.status).toBe(201);
    }
    const owed = 2 * forfait.price_fcfa - 2 * Math.round(forfait.price_fcfa / 10);

    // A colleague of the reseller at the till: the owner's number spent its hour of SMS codes on
    // the logins above.
    const colleague = newMsisdn();
    await upsertOperator({ msisdn: colleague, role: 'reseller', resellerId });
    const r = await open();
    await logIn(r.page, colleague, '#agents');
    const card = r.page.getByRole('region', { name: 'Cabine Adjamé' });
    await card.locator('[data-field="owed"]').getByText(fcfa(owed), { exact: true }).waitFor();
    await card.getByText('Remises et reprises').click();
    await card.getByText('Rien pour le moment.').or(card.locator('ul.history li').first()).waitFor();

    await card.getByLabel('Encaisser (FCFA)').fill(String(owed));
    await card.getByRole('button', { name: 'Enregistrer' }).click();
    await card.getByText(`Enregistrer ${fcfa(owed)} reçus de Cabine Adjamé ?`).waitFor();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.getByText('Enregistré. Vous pouvez annuler pendant 5 minutes.').waitFor();
    await card.locator('[data-field="owed"]').getByText(fcfa(0), { exact: true }).waitFor();
    const cashLine = card.locator('ul.history li[data-kind="cash"]');
    await cashLine.getByText(`Espèces reçues · ${fcfa(owed)}`).waitFor();
    expect(await cashLine.innerText()).not.toContain('annulée');
    expect(await audit(r.page)).toEqual([]);

    await card.getByRole('button', { name: 'Annuler cette opération' }).click();
    await card.getByText('Opération annulée : soldes rétablis.').waitFor();
    // The balance as before the record, on the screen and in the API; the record kept, marked undone.
    await card.locator('[data-field="owed"]').getByText(fcfa(owed), { exact: true }).waitFor();
    expect(await card.locator('[data-field="cash-received"]').innerText()).toBe(fcfa(0));
    await expect.poll(() => cashLine.innerText()).toContain('(annulée)');
    expect(await card.getByRole('button', { name: 'Annuler cette opération' }).count()).toBe(0);
    const after = await call<{ agent: { owed_fcfa: number; cash_received_fcfa: number } }>(
      server.url(),
      'GET',
      `/api/v1/agents/${id}`,
      { token: owner },
    );
    expect(after.body.agent).toMatchObject({ owed_fcfa: owed, cash_received_fcfa: 0 });
    expect(await audit(r.page)).toEqual([]);
    await card.screenshot({ path: join(tmpdir(), 'console-agent-cash-undone.png') });
    expect(await scrollWidth(r.page)).toBeLessThanOrEqual(360);
    expect(r.problems).toEqual([]);
    await r.context.close();
  }, 120_000);
});
