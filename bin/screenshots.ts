// `npm run screenshots`: the captive portal photographed in Chromium at 360 px for the docs.

/**
 * `npm run screenshots`: regenerates the pictures in docs/ (today docs/portal.png, the captive
 * portal's forfaits step on a 360 px phone, branded). It starts what it needs on its own (an
 * in-memory DynamoDB Local, the local API on a free port, Debian's chromium) and stops it all;
 * the tests never write into the tree.
 */
import './local/preamble.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { updateBranding } from '../functions/network/branding.js';
import { allocateVlan } from '../functions/network/vlans.js';
import { CHROMIUM } from '../test/support/browser.js';
import { localClient, startDynamoDbLocal } from './local/dynamodb-local.js';
import { applyLocalEnv } from './local/env.js';
import { localPages } from './local/pages.js';
import { loginOnPortal, PHONE, photographForfaits } from './local/portal-shot.js';
import { startServer } from './local/server.js';
import { createTable, seed } from './local/table.js';

const DOCS = resolve(import.meta.dirname, '..', 'docs');
const LOGO = 'https://logo.example.com/chez-awa.png';
// A 1x1 PNG stands for the reseller's logo: its host is not reachable from here.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The code of the last SMS the outbox holds for a number. */
function codeIn(outbox: string, msisdn: string): string {
  const sms = readFileSync(outbox, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { to: string; message: string })
    .filter((m) => m.to === msisdn)
    .at(-1);
  const code = sms && /\b(\d{6})\b/.exec(sms.message)?.[1];
  if (!code) throw new Error(`no code sent to ${msisdn}`);
  return code;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'screenshots-'));
  const outbox = join(dir, 'sms.jsonl');
  const dynamo = await startDynamoDbLocal();
  const secret = () => randomBytes(32).toString('base64url');
  applyLocalEnv({
    endpoint: dynamo.endpoint,
    tableName: 'screenshots',
    publicBaseUrl: 'http://127.0.0.1:0',
    secrets: { JWT_SECRET: secret(), OTP_PEPPER: secret(), WEBHOOK_SECRET: secret() },
    smsOutbox: outbox,
  });
  const browser = await chromium.launch(CHROMIUM);
  const server = await startServer({ port: 0, pages: localPages() });
  try {
    process.env.PUBLIC_BASE_URL = server.url;
    const client = localClient(dynamo.endpoint);
    await createTable(client, 'screenshots');
    client.destroy();
    await seed();
    const resellerId = randomUUID();
    const { nas_id: nasId } = await allocateVlan({ resellerId, resellerName: 'Chez Awa', siteCount: 1 });
    const admin = { role: 'admin', sub: randomUUID(), ref: 'SUB-2250700000000', exp: 0 } as const;
    await updateBranding(admin, nasId, { logo_url: LOGO, primary_color: '#b3261e' });

    const context = await browser.newContext({ viewport: PHONE, locale: 'fr-FR' });
    const page = await context.newPage();
    await page.route(`${new URL(LOGO).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'image/png', body: PNG }),
    );
    // What a MikroTik's login.html sends: where to post the login, where the subscriber was going.
    const query = new URLSearchParams({
      'link-login-only': 'http://login.wifi/login',
      'link-orig': 'http://example.com/',
      mac: 'AA:BB:CC:DD:EE:FF',
    });
    await page.goto(`${server.url}/portal/${nasId}?${query}`);
    await loginOnPortal(page, '+2250712345678', (msisdn) => codeIn(outbox, msisdn));
    await photographForfaits(page, join(DOCS, 'portal.png'));
    process.stdout.write(`wrote ${join(DOCS, 'portal.png')}\n`);
  } finally {
    await browser.close();
    await server.close();
    await dynamo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
