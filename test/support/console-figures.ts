import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LINKS, type Link, type LinkName, meter, twoVisits, withBrowser } from './browser.js';

export interface ConsoleFigures {
  /** Bytes on the wire for the login page, cold cache (HTML, stylesheet, scripts). */
  loginBytes: number;
  /** Bytes on the wire for the dashboard of a logged-in reseller, cold cache (the chart and the API's answers included). */
  dashboardBytes: number;
  /** Bytes on the wire when the same browser opens the dashboard again. */
  repeatBytes: number;
  /** The console's assets the repeat visit took from the browser's cache. */
  repeatFromCache: string[];
  /** Times from navigation start on each emulated link (cache off): see `SlowLink`. */
  links: Record<LinkName, SlowLink>;
}

/** What a phone on a slow link waits for, in ms from navigation start. */
export interface SlowLink {
  /** The login page's phone field is there. */
  loginMs: number;
  /** The dashboard's figures are written (sales today, this month's split): usable. */
  figuresMs: number;
  /** Bytes on the wire until then (the chart's chunk comes after). */
  figuresBytes: number;
  /** Its chart is drawn too (uPlot, a chunk loaded after the figures). */
  chartMs: number;
}

/** The budgets the figures are held to (`npm run bench` prints them; the browser test enforces the bytes). */
export const CONSOLE_BUDGET = {
  loginBytes: 60 * 1024,
  dashboardBytes: 150 * 1024,
  /** The dashboard's figures, on 3G and on 2G alike. */
  dashboardUsableMs: 3000,
};

/** A browser context whose tab already holds the session (as after a login), at 360 px. */
async function loggedIn(browser: Browser, token: string, msisdn: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
  await context.addInitScript(
    `sessionStorage.setItem('token', ${JSON.stringify(token)}); sessionStorage.setItem('msisdn', ${JSON.stringify(msisdn)});`,
  );
  return context;
}

/** The dashboard is usable: its figures are written. */
async function figuresShown(page: Page): Promise<void> {
  await page.locator('[data-testid="sales-today"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="summary-total"]').waitFor({ timeout: 60_000 });
}

/** The dashboard is complete: its figures and its chart. */
async function dashboardReady(page: Page): Promise<void> {
  await figuresShown(page);
  await page.locator('.chart canvas').first().waitFor({ timeout: 60_000 });
}

// A string: this project's TypeScript has no DOM types, the page runs it as it is.
const now = (page: Page) => page.evaluate('Math.round(performance.now())') as Promise<number>;

/** The login page and the dashboard on one emulated link, a fresh context each, cache off. */
async function onLink(browser: Browser, url: string, session: { token: string; msisdn: string }, link: Link) {
  const anonymous = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
  const loginPage = await anonymous.newPage();
  await meter(loginPage, { link });
  await loginPage.goto(url, { waitUntil: 'commit', timeout: 60_000 });
  await loginPage.locator('#msisdn').waitFor({ timeout: 60_000 });
  const loginMs = await now(loginPage);
  await anonymous.close();

  const slow = await loggedIn(browser, session.token, session.msisdn);
  const page = await slow.newPage();
  const m = await meter(page, { link });
  await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
  await figuresShown(page);
  const figuresMs = await now(page);
  const figuresBytes = m.take().bytes;
  await dashboardReady(page);
  const chartMs = await now(page);
  await slow.close();
  return { loginMs, figuresMs, figuresBytes, chartMs };
}

/**
 * The console's weight and speed as a reseller's phone meets them: the login page and the
 * dashboard on a cold cache, the dashboard again from the cache, and both on 3G and 2G
 * (Chromium's network emulation through CDP). `token` is a reseller's session token (`msisdn`
 * its number).
 */
export async function measureConsole(
  baseUrl: string,
  session: { token: string; msisdn: string },
  options: { browser?: Browser; links?: boolean } = {},
): Promise<ConsoleFigures> {
  const url = `${baseUrl}/console`;
  return withBrowser(options.browser, async (browser) => {
    const anonymous = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const loginPage = await anonymous.newPage();
    const l = await meter(loginPage);
    await loginPage.goto(url, { waitUntil: 'load' });
    await loginPage.locator('#msisdn').waitFor();
    const login = l.take();
    await anonymous.close();

    const again = await loggedIn(browser, session.token, session.msisdn);
    const { first, repeat } = await twoVisits(await again.newPage(), url, dashboardReady);
    await again.close();

    const none = { loginMs: 0, figuresMs: 0, figuresBytes: 0, chartMs: 0 };
    const links = { '3G': none, '2G': none };
    if (options.links !== false) {
      links['3G'] = await onLink(browser, url, session, LINKS['3G']);
      links['2G'] = await onLink(browser, url, session, LINKS['2G']);
    }
    return {
      loginBytes: login.bytes,
      dashboardBytes: first.bytes,
      repeatBytes: repeat.bytes,
      repeatFromCache: repeat.cached.filter((u) => u.includes('/console/assets/')),
      links,
    };
  });
}

/** A session token through the platform's own OTP flow, the code read from the SMS outbox. */
export async function otpLogin(baseUrl: string, msisdn: string, outbox: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${baseUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const asked = await post('/auth/otp/request', { msisdn });
  if (asked.status !== 200) throw new Error(`OTP request for ${msisdn}: ${asked.status}`);
  const { readFileSync } = await import('node:fs');
  const sms = readFileSync(outbox, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string; message: string })
    .filter((m) => m.to === msisdn)
    .pop();
  const otp = /\b(\d{6})\b/.exec(sms?.message ?? '')?.[1];
  const verified = await post('/auth/otp/verify', { msisdn, otp });
  const body = (await verified.json()) as { session_token?: string };
  if (!body.session_token) throw new Error(`OTP verify for ${msisdn}: ${verified.status}`);
  return body.session_token;
}
