import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Link, meter, twoVisits, withBrowser } from './browser.js';

export interface ConsoleFigures {
  /** Bytes on the wire for the login page, cold cache (HTML, stylesheet, scripts). */
  loginBytes: number;
  /** Bytes on the wire for the dashboard of a logged-in reseller, cold cache (the chart and the API's answers included). */
  dashboardBytes: number;
  /** Bytes on the wire when the same browser opens the dashboard again. */
  repeatBytes: number;
  /** The console's assets the repeat visit took from the browser's cache. */
  repeatFromCache: string[];
  /** On a 3G link, from navigation start until the dashboard shows its figures and its chart. */
  dashboardUsableMs3G: number;
}

/** The budgets the figures are held to (`npm run bench` prints them; the browser test enforces them). */
export const CONSOLE_BUDGET = {
  loginBytes: 60 * 1024,
  dashboardBytes: 150 * 1024,
  dashboardUsableMs3G: 3000,
};

// 3G as the budget is quoted: 1.6 Mbit/s down, 750 kbit/s up, 150 ms of round trip.
const THREE_G: Link = {
  offline: false,
  latency: 150,
  downloadThroughput: 1_600_000 / 8,
  uploadThroughput: 750_000 / 8,
};

/** A browser context whose tab already holds the session (as after a login), at 360 px. */
async function loggedIn(browser: Browser, token: string, msisdn: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
  await context.addInitScript(
    `sessionStorage.setItem('token', ${JSON.stringify(token)}); sessionStorage.setItem('msisdn', ${JSON.stringify(msisdn)});`,
  );
  return context;
}

/** The dashboard is usable: its figures are written and its chart is drawn. */
async function dashboardReady(page: Page): Promise<void> {
  await page.locator('[data-testid="sales-today"]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid="summary-total"]').waitFor({ timeout: 60_000 });
  await page.locator('.chart canvas').first().waitFor({ timeout: 60_000 });
}

/**
 * The console's weight and speed as a reseller's phone meets them: the login page and the
 * dashboard on a cold cache, the dashboard again from the cache, and the dashboard on 3G.
 * `token` is a reseller's session token (`msisdn` its number).
 */
export async function measureConsole(
  baseUrl: string,
  session: { token: string; msisdn: string },
  options: { browser?: Browser } = {},
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

    const context = await loggedIn(browser, session.token, session.msisdn);
    const { first, repeat } = await twoVisits(await context.newPage(), url, dashboardReady);
    await context.close();

    const slow = await loggedIn(browser, session.token, session.msisdn);
    const slowPage = await slow.newPage();
    await meter(slowPage, { link: THREE_G });
    await slowPage.goto(url, { waitUntil: 'commit', timeout: 60_000 });
    await dashboardReady(slowPage);
    // A string: this project's TypeScript has no DOM types, the page runs it as it is.
    const usable = (await slowPage.evaluate('Math.round(performance.now())')) as number;
    await slow.close();
    return {
      loginBytes: login.bytes,
      dashboardBytes: first.bytes,
      repeatBytes: repeat.bytes,
      repeatFromCache: repeat.cached.filter((u) => u.includes('/console/assets/')),
      dashboardUsableMs3G: usable,
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
