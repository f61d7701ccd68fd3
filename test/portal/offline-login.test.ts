import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hotspotLoginPage } from '../../functions/routers/routeros-script.mjs';
import { audit } from '../support/axe.js';
import { CHROMIUM } from '../support/browser.js';

// Issue 34, item 5: the router's own login page (what the setup script writes) when the platform
// cannot be reached: a light offline form, the code only, posted to the router itself. A fake
// MikroTik serves the page with its variables filled in, as RouterOS does.

let browser: Browser;
let router: Server;
let portal: Server;
let routerUrl = '';
/** What the router's login URL received. */
let posted: URLSearchParams | undefined;
/** The portal's URL the page probes: a live server, or a port nobody listens on. */
let portalUrl = '';

/** RouterOS's page variables: `$(name)` and `$(if name)...$(else)...$(endif)` blocks. */
function render(page: string, vars: Record<string, string>): string {
  return page
    .replace(
      /\$\(if ([a-z-]+)\)\n?([\s\S]*?)(?:\$\(else\)\n?([\s\S]*?))?\$\(endif\)\n?/g,
      (_m, name: string, yes: string, no?: string) => (vars[name] ? yes : (no ?? '')),
    )
    .replace(/\$\(([a-z-]+)\)/g, (_m, name: string) => vars[name] ?? '');
}

beforeAll(async () => {
  browser = await chromium.launch(CHROMIUM);
  portal = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>Portail</title><h1 id="portal">${req.url}</h1>`);
  });
  await new Promise<void>((r) => portal.listen(0, '127.0.0.1', () => r()));
  router = createServer((req, res) => {
    if (req.url === '/login' && req.method === 'POST') {
      let text = '';
      req.on('data', (d: Buffer) => {
        text += d.toString();
      });
      req.on('end', () => {
        posted = new URLSearchParams(text);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>Connecté</title><h1 id="status">Connecté</h1>');
      });
      return;
    }
    if (req.url === '/md5.js') {
      res.writeHead(200, { 'content-type': 'application/javascript' });
      return res.end('');
    }
    const error = new URL(req.url ?? '/', 'http://x').searchParams.get('error') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      render(hotspotLoginPage(portalUrl), {
        identity: 'access_maquis_awa',
        'link-login-only': `${routerUrl}/login`,
        'link-orig': 'http://example.com/',
        mac: '02:00:00:00:34:09',
        error,
      }),
    );
  });
  await new Promise<void>((r) => router.listen(0, '127.0.0.1', () => r()));
  routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  for (const s of [router, portal]) {
    s?.closeAllConnections();
    await new Promise<void>((r) => (s ? s.close(() => r()) : r()));
  }
});

describe("the router's login page", () => {
  it('sends the subscriber to the portal while the platform answers', async () => {
    portalUrl = `http://127.0.0.1:${(portal.address() as AddressInfo).port}`;
    const page = await browser.newPage({ viewport: { width: 360, height: 640 } });
    await page.goto(`${routerUrl}/`);
    await page.waitForSelector('#portal');
    expect(await page.textContent('#portal')).toMatch(/^\/portal\/access_maquis_awa\?link-login-only=/);
    await page.close();
  });

  it('shows the offline form when the platform cannot be reached: the code is posted to the router itself', async () => {
    // A port nobody listens on: the cut link as the phone sees it.
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    portalUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise<void>((r) => dead.close(() => r()));
    const page = await browser.newPage({ viewport: { width: 360, height: 640 } });
    await page.goto(
      `${routerUrl}/?error=${encodeURIComponent('Réseau national coupé : seuls les codes déjà achetés fonctionnent')}`,
    );
    await page.getByLabel('Votre code / Your code').waitFor();
    expect(await page.textContent('main')).toContain(
      'Réseau national coupé : seuls les codes déjà achetés fonctionnent',
    );
    // No payment form: only the code.
    expect(await page.locator('main input:not([type=hidden])').count()).toBe(1);
    expect(await audit(page)).toEqual([]);
    // The picture in docs/outage.md (docs/router-offline.png) is this screen.
    await page.screenshot({ path: join(tmpdir(), 'router-offline.png') });
    await page.getByLabel('Votre code / Your code').fill('abcd-efgh 23');
    await page.getByRole('button', { name: 'Se connecter / Log in' }).click();
    await page.waitForSelector('#status');
    expect(posted?.get('username')).toBe('ABCDEFGH23');
    expect(posted?.get('password')).toBe('ABCDEFGH23');
    expect(posted?.get('dst')).toBe('http://example.com/');
    await page.close();
  });
});
