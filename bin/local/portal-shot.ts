// The phone the portal's screenshots are taken on (its viewport and agent).

import type { Page } from 'playwright-core';

/** The phone the portal is designed for (and photographed on): 360 x 740 CSS pixels. */
export const PHONE = { width: 360, height: 740 };

/**
 * Logs in on an open portal page as a subscriber does: the national number typed with its
 * spaces (the country is the list's default), the code the SMS brought (`codeOf` reads it
 * where the local SMS outbox put it).
 */
export async function loginOnPortal(
  page: Page,
  msisdn: string,
  codeOf: (msisdn: string) => string,
): Promise<void> {
  await page.getByLabel('Votre numéro de téléphone').fill(`${msisdn.slice(4, 6)} ${msisdn.slice(6)}`);
  await page.getByRole('button', { name: 'Recevoir le code par SMS' }).click();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').waitFor();
  await page.getByLabel('Code reçu par SMS (6 chiffres)').fill(codeOf(msisdn));
  await page.getByRole('button', { name: 'Valider', exact: true }).click();
}

/** Once logged in: waits for the forfaits step and saves what the phone's screen shows as a PNG. */
export async function photographForfaits(page: Page, path: string): Promise<void> {
  await page.locator('label.choice').first().waitFor();
  await page.screenshot({ path, fullPage: false });
}
