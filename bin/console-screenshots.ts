// `npm run screenshots`, the console's: each screen photographed in Chromium at 360 px for the docs.

/**
 * `npm run screenshots` (after bin/screenshots.ts): the README's pictures of the console, in chromium
 * at 360 px from a stack of its own (DynamoDB Local, the API, the demo reseller): the dashboard
 * after two weeks of sales (docs/console-dashboard.png), who is online with a disconnect being
 * confirmed (docs/console-sessions.png), the last 30 days' sales report (docs/console-reports.png),
 * a batch of codes with its length, prefix and odds (docs/console-codes.png), an A4 page of 21
 * printed cards (docs/console-print.png), an agent's card with the cash just recorded and its undo
 * (docs/console-agents.png), and the operator's report of a reseller picked by name
 * (docs/console-admin-reports.png). Not part of `npm test`, which leaves the tree as it found it.
 */
import './local/preamble.js';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { SEED_FORFAITS } from '../functions/billing/catalogue.js';
import { generateVouchers } from '../functions/billing/vouchers.js';
import { clock } from '../functions/core/clock.js';
import { account } from '../functions/radius/accounting.js';
import { login } from '../functions/radius/login.js';
import { regionExchange } from '../functions/radius/table-store.js';
import { upsertOperator } from '../functions/store/accounts.js';
import { CHROMIUM } from '../test/support/browser.js';
import { otpLogin } from '../test/support/console-figures.js';
import { DEMO_RESELLER_ID, DEMO_RESELLER_MSISDN, seedDemo } from './local/demo.js';
import { localClient, startDynamoDbLocal } from './local/dynamodb-local.js';
import { applyLocalEnv } from './local/env.js';
import { localPages } from './local/pages.js';
import { startServer } from './local/server.js';
import { startStreamConsumers } from './local/streams.js';
import { createTable, seed } from './local/table.js';

const ROOT = resolve(import.meta.dirname, '..');
const DAY = 86_400_000;
/** Every card has its answer (none still says "Chargement…"): run in the page. */
const NOTHING_LOADING = '!document.querySelector(\'[aria-busy="true"]\')';

/**
 * Sales on each of the last 14 days: vouchers made that day and first used at the hotspot.
 * Answers today's codes and the MAC each logged in with.
 */
async function twoWeeksOfSales(nasId: string): Promise<{ code: string; mac: string }[]> {
  const today: { code: string; mac: string }[] = [];
  const forfaits = SEED_FORFAITS.slice(0, 3) as { id: string }[];
  const start = Date.now();
  for (let d = 13; d >= 0; d--) {
    const at = start - d * DAY - 3 * 3600_000;
    clock.set(() => at);
    for (const [i, f] of forfaits.entries()) {
      const n = 1 + ((d * 7 + i * 3) % 5);
      const { items } = await generateVouchers({ forfaitId: f.id, resellerId: DEMO_RESELLER_ID, n });
      for (const [k, v] of items.entries()) {
        const mac = `02:00:00:00:${String(d).padStart(2, '0')}:${i}${k}`;
        await login(
          { userName: v.code, nasId, callingStationId: mac },
          'record',
          undefined,
          regionExchange(at),
        );
        // Today's longer forfaits (not the hour, long over): still online for the picture.
        if (d === 0 && i > 0) today.push({ code: v.code, mac });
      }
    }
  }
  clock.reset();
  return today;
}

/** Three of today's buyers online now (their router's Accounting Start, with some data used). */
async function online(nasId: string, today: { code: string; mac: string }[]): Promise<void> {
  for (const [i, { code, mac }] of today.slice(0, 3).entries()) {
    await account(
      {
        status: 'Start',
        uniqueId: `shot-${i}-${code}`,
        userName: code,
        nasId,
        callingStationId: mac,
        acctSessionId: `8000000${i}`,
        nasIp: '127.0.0.1',
        totalBytes: (i + 1) * 37_000_000,
        sessionTimeS: (i + 1) * 900,
      },
      { router_id: 'rtr_demo_udp', reseller_id: DEMO_RESELLER_ID },
      regionExchange(Date.now()),
    );
  }
}

/** A JSON call to the local API as `token`'s holder; answers the body. */
async function post<T>(base: string, path: string, token: string, body: unknown): Promise<T> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An agent of the demo reseller who sold two codes from its float: it owes the cash for them. */
async function agentWithSales(base: string, owner: string, outbox: string): Promise<void> {
  const msisdn = '+2250700000077';
  const agent = await post<{ id: string }>(base, '/agents', owner, {
    msisdn,
    name: 'Boutique Kone',
    commission_bp: 1000,
  });
  const invited = await otpLogin(base, msisdn, outbox);
  const { session_token } = await post<{ session_token: string }>(
    base,
    `/agents/${agent.id}/accept`,
    invited,
    {},
  );
  const forfait = SEED_FORFAITS[0] as { id: string; price_fcfa: number };
  await post(base, `/agents/${agent.id}/allot`, owner, { float_fcfa: 2 * forfait.price_fcfa });
  for (let i = 0; i < 2; i++)
    await post(base, `/agents/${agent.id}/sales`, session_token, { forfait_id: forfait.id });
}

async function main(): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const dir = join(tmpdir(), `console-shots-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const outbox = join(dir, 'sms.jsonl');
  const browser = await chromium.launch(CHROMIUM);
  try {
    applyLocalEnv({
      endpoint: dynamo.endpoint,
      tableName: 'shots',
      publicBaseUrl: 'http://127.0.0.1:0',
      secrets: {
        JWT_SECRET: 'shots-jwt-secret-0123456789abcdef',
        OTP_PEPPER: 'shots-pepper-0123456789',
        WEBHOOK_SECRET: 'shots-webhook-secret-0123',
        RADIUS_API_SECRET: 'shots-radius-api-secret-0123456789',
      },
      smsOutbox: outbox,
    });
    process.env.LOCAL_CANARY = '0';
    const client = localClient(dynamo.endpoint);
    await createTable(client, 'shots');
    client.destroy();
    await seed();
    const { nasId } = await seedDemo();
    // The sessions' counts are the stream consumers' (as `npm start` runs them): counted before the shot.
    const consumers = await startStreamConsumers();
    await online(nasId, await twoWeeksOfSales(nasId));
    await consumers.drain();
    const server = await startServer({ port: 0, pages: localPages() });
    const token = await otpLogin(server.url, DEMO_RESELLER_MSISDN, outbox);

    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    await context.addInitScript(
      `sessionStorage.setItem('token', ${JSON.stringify(token)}); sessionStorage.setItem('msisdn', ${JSON.stringify(DEMO_RESELLER_MSISDN)});`,
    );
    // The portal's default logo is on the platform's CDN, out of reach here.
    await context.route(/^https:\/\//, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${server.url}/console`);
    await page.locator('.chart canvas').first().waitFor();
    await page.getByTestId('summary-total').waitFor();
    await page.waitForFunction(NOTHING_LOADING);
    await page.screenshot({ path: join(ROOT, 'docs', 'console-dashboard.png'), fullPage: true });

    await page.goto(`${server.url}/console#sessions`);
    const first = page.locator('[data-session]').first();
    await first.getByRole('button', { name: /^Déconnecter/ }).click();
    await first.getByRole('button', { name: 'Oui, déconnecter' }).waitFor();
    await page.screenshot({ path: join(ROOT, 'docs', 'console-sessions.png'), fullPage: true });

    // Sales of the last 30 days, by hotspot, forfait, agent, channel and day.
    await page.goto(`${server.url}/console#reports`);
    await page.getByRole('button', { name: '30 derniers jours' }).click();
    await page.getByTestId('report-days').waitFor();
    await page.screenshot({ path: join(ROOT, 'docs', 'console-reports.png'), fullPage: true });

    // A batch of 21 codes "AW" + 6, printed 21 to an A4 page: the page as paper shows it.
    await page.goto(`${server.url}/console#codes`);
    await page.getByLabel('Forfait').selectOption({ index: 1 });
    await page.getByLabel('Nombre de codes').fill('21');
    await page.getByLabel('Longueur des codes').selectOption('8');
    await page.getByLabel('Préfixe (facultatif, 4 caractères au plus)').fill('AW');
    await page.screenshot({ path: join(ROOT, 'docs', 'console-codes.png'), fullPage: true });
    await page.getByRole('button', { name: 'Générer des codes' }).click();
    await page.getByLabel("Format d'impression").selectOption('a4-21');
    await page.locator('.batches li.new').getByRole('button', { name: 'Imprimer', exact: true }).click();
    await page.emulateMedia({ media: 'print' });
    // A4 at 96 dpi, its 8 mm margins around the sheet.
    await page.setViewportSize({ width: 734, height: 1062 });
    await page
      .locator('.sheet .page')
      .first()
      .screenshot({ path: join(ROOT, 'docs', 'console-print.png') });
    await context.close();

    // An agent's card: the cash it owed just recorded, said done, with its undo.
    await agentWithSales(server.url, token, outbox);
    const agents = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    await agents.addInitScript(
      `sessionStorage.setItem('token', ${JSON.stringify(token)}); sessionStorage.setItem('msisdn', ${JSON.stringify(DEMO_RESELLER_MSISDN)});`,
    );
    const agentsPage = await agents.newPage();
    await agentsPage.goto(`${server.url}/console#agents`);
    const card = agentsPage.getByRole('region', { name: 'Boutique Kone' });
    const owed = await card.locator('[data-field="owed"]').innerText();
    await card.getByLabel('Encaisser (FCFA)').fill(owed.replace(/\D/g, ''));
    await card.getByRole('button', { name: 'Enregistrer' }).click();
    await card.getByRole('button', { name: 'Oui, confirmer' }).click();
    await card.getByRole('button', { name: 'Annuler cette opération' }).waitFor();
    await card.getByText('Remises et reprises').click();
    await card.locator('ul.history li').first().waitFor();
    await card.screenshot({ path: join(ROOT, 'docs', 'console-agents.png') });
    await agents.close();

    // The operator's report: the reseller picked by its name, the last 30 days.
    const operatorMsisdn = '+2250700000099';
    await upsertOperator({ msisdn: operatorMsisdn, role: 'admin' });
    const operatorToken = await otpLogin(server.url, operatorMsisdn, outbox);
    const operator = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    await operator.addInitScript(
      `sessionStorage.setItem('token', ${JSON.stringify(operatorToken)}); sessionStorage.setItem('msisdn', ${JSON.stringify(operatorMsisdn)});`,
    );
    const operatorPage = await operator.newPage();
    await operatorPage.goto(`${server.url}/console#reports`);
    await operatorPage.getByLabel('Revendeur').selectOption({ label: 'Demo Hotspot' });
    await operatorPage.getByRole('button', { name: '30 derniers jours' }).click();
    await operatorPage.getByTestId('report-days').waitFor();
    await operatorPage.screenshot({ path: join(ROOT, 'docs', 'console-admin-reports.png'), fullPage: true });
    await operator.close();
    await server.close();
    await consumers.stop();
    process.stdout.write(
      'docs/console-dashboard.png, docs/console-sessions.png, docs/console-reports.png, docs/console-codes.png, docs/console-print.png, docs/console-agents.png, docs/console-admin-reports.png\n',
    );
  } finally {
    await browser.close();
    await dynamo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshots failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
