import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { LINKS, type Link, meter, twoVisits, withBrowser } from './browser.js';

export interface PortalFigures {
  /** Bytes on the wire for the first visit (HTML, stylesheet, script; the logo aside). */
  firstLoadBytes: number;
  /** Bytes on the wire when the same browser opens the portal again. */
  repeatLoadBytes: number;
  /** Script and stylesheet names the repeat visit took from the browser's cache. */
  repeatFromCache: string[];
  /** On a 2G link, from navigation start until the phone field works (its script has run). */
  phoneFieldUsableMs2G: number;
  /** The same on 3G. */
  phoneFieldUsableMs3G: number;
}

/**
 * The captive portal's weight and speed as a subscriber's phone meets them: the first visit's
 * bytes, a repeat visit's bytes (script and stylesheet from the cache), and how long a 2G link
 * takes to give a usable phone field. `npm run bench` reports these.
 */
export async function measurePortal(
  baseUrl: string,
  nasId: string,
  options: { browser?: Browser; logoPattern?: string } = {},
): Promise<PortalFigures> {
  const logoPattern = options.logoPattern ?? 'https://*';
  const url = `${baseUrl}/portal/${encodeURIComponent(nasId)}`;
  return withBrowser(options.browser, async (browser) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    // The logo is the reseller's, on its own host: outside the budget, and not reachable here.
    const blocked = [logoPattern];
    const { first, repeat } = await twoVisits(await context.newPage(), url, async () => {}, { blocked });
    await context.close();

    const usableOn = async (link: Link) => {
      const slow = await browser.newContext({ viewport: { width: 360, height: 740 } });
      const slowPage = await slow.newPage();
      await meter(slowPage, { blocked, link });
      await slowPage.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      await slowPage.locator('#msisdn').waitFor({ state: 'visible' });
      // Deferred scripts run before DOMContentLoaded: from then on the form answers.
      // A string: this project's TypeScript has no DOM types, the page runs it as it is.
      const usable = (await slowPage.evaluate(
        "Math.round(performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd)",
      )) as number;
      await slow.close();
      return usable;
    };
    const usable = await usableOn(LINKS['2G']);
    const usable3G = await usableOn(LINKS['3G']);
    return {
      firstLoadBytes: first.bytes,
      repeatLoadBytes: repeat.bytes,
      repeatFromCache: repeat.cached.filter((u) => u.includes('/portal/assets/')),
      phoneFieldUsableMs2G: usable,
      phoneFieldUsableMs3G: usable3G,
    };
  });
}

export interface SmsPerSale {
  /** SMS the buyer's number received for a first purchase on a new phone (code + access code). */
  firstPurchase: number;
  /** SMS for a second purchase from the same phone, which the portal remembers. */
  returningDevice: number;
  /** SMS for a purchase after the phone's credential was revoked (back to the code). */
  afterRevocation: number;
}

/** SMS in the local outbox addressed to `msisdn`. */
function smsCount(outbox: string, msisdn: string): number {
  let text = '';
  try {
    text = readFileSync(outbox, 'utf8');
  } catch {
    return 0;
  }
  return text.split('\n').filter((line) => line.trim() && (JSON.parse(line) as { to?: string }).to === msisdn)
    .length;
}

/** The newest 6-digit code texted to `msisdn`. */
function codeIn(outbox: string, msisdn: string): string {
  const lines = readFileSync(outbox, 'utf8').trim().split('\n').reverse();
  for (const line of lines) {
    const sms = JSON.parse(line) as { to: string; message: string };
    const code = sms.to === msisdn ? /\b(\d{6})\b/.exec(sms.message)?.[1] : undefined;
    if (code) return code;
  }
  throw new Error(`no code texted to ${msisdn}`);
}

/** Logs in on the portal page with the code texted to `msisdn` (typed as a local number). */
async function logInWithCode(page: Page, outbox: string, msisdn: string): Promise<void> {
  await page.getByLabel('Votre numéro de téléphone').fill(`${msisdn.slice(4, 6)} ${msisdn.slice(6)}`);
  await page.getByRole('button', { name: 'Recevoir le code par SMS' }).click();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').waitFor();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').fill(codeIn(outbox, msisdn));
  await page.getByRole('button', { name: 'Valider', exact: true }).click();
}

/** One purchase through the portal page: forfait, Wave in the sandbox, back, the code shown. */
async function buyOnce(page: Page): Promise<void> {
  // A phone with time left here sees its code first: it buys another.
  const more = page.getByRole('button', { name: 'Acheter un autre forfait' });
  await Promise.race([page.locator('label.choice').first().waitFor(), more.waitFor()]);
  if (await more.isVisible()) await more.click();
  await page.locator('label.choice').first().waitFor();
  await page.getByRole('radio', { name: 'Wave' }).check();
  await page.getByRole('button', { name: 'Payer' }).click();
  await page.waitForURL(/\/sandbox\/pay\//);
  await page.getByRole('button', { name: 'Pay (complete)' }).click();
  await page
    .locator('#code')
    .filter({ hasText: /^[A-Z0-9]{6,}$/ })
    .waitFor({ timeout: 30_000 });
}

/**
 * SMS per sale, counted in the local outbox, through the portal page in Debian's chromium: a
 * first purchase on a new phone (the code to log in; the access code is shown, not texted), a
 * second from the same phone (its device credential: no code), and one after the credential
 * was revoked (back to the code). `portalUrl` is the page with the router's parameters.
 */
export async function measureSmsPerSale(
  portalUrl: string,
  outbox: string,
  msisdn: string,
  options: { browser?: Browser; revoke: (deviceToken: string) => Promise<void> },
): Promise<SmsPerSale> {
  return withBrowser(options.browser, async (browser) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    context.setDefaultTimeout(15_000);
    /** One purchase in a new tab (logging in first or not): the SMS it cost. */
    const sale = async (logIn: boolean, then?: (page: Page) => Promise<void>) => {
      const page = await context.newPage();
      const before = smsCount(outbox, msisdn);
      await page.goto(portalUrl);
      if (logIn) await logInWithCode(page, outbox, msisdn);
      await buyOnce(page);
      const sent = smsCount(outbox, msisdn) - before;
      await then?.(page);
      await page.close();
      return sent;
    };
    const firstPurchase = await sale(true);
    // The same phone later (a new tab: the session of the first is gone, the device is kept).
    let deviceToken = '';
    const returningDevice = await sale(false, async (page) => {
      deviceToken = (await page.evaluate("localStorage.getItem('portal:device')")) as string;
    });
    // "Forget this device": the next visit asks for a code again.
    await options.revoke(deviceToken);
    const afterRevocation = await sale(true);
    await context.close();
    return { firstPurchase, returningDevice, afterRevocation };
  });
}
