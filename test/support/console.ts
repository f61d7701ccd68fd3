import type { Browser, Page } from 'playwright-core';
import { lastOtp } from './http.js';

/**
 * A phone's browser on the console at 360 px, French, that notes what would be a fault: a script
 * error, a console error or warning, a CSP violation (`problems`, expected empty at the end).
 */
export async function openPhone(browser: Browser, options: { acceptDownloads?: boolean } = {}) {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    locale: 'fr-FR',
    ...(options.acceptDownloads ? { acceptDownloads: true } : {}),
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective));",
  );
  return { context, page, problems };
}

/** Logs in on the console's first screen with the SMS code the stack texted to `msisdn`. */
export async function logInConsole(page: Page, baseUrl: string, msisdn: string, hash = ''): Promise<void> {
  await page.goto(`${baseUrl}/console${hash}`);
  await page.getByLabel('Numéro de téléphone').fill(msisdn);
  await page.getByRole('button', { name: 'Recevoir le code par SMS' }).click();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').waitFor();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').fill(lastOtp(msisdn));
  await page.getByRole('button', { name: 'Valider' }).click();
  await page.getByRole('navigation', { name: 'Menu' }).waitFor();
}

type Doc = { document: { documentElement: { scrollWidth: number } } };
/** How wide the page is drawn: at most the viewport's width when nothing scrolls sideways. */
export const scrollWidth = (page: Page): Promise<number> =>
  page.evaluate(() => (globalThis as unknown as Doc).document.documentElement.scrollWidth);

/** A call to the API as the console makes it: the JSON body (or `{}`) and the status. */
export async function consoleApi(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}
