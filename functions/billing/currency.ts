// The country a reseller sells in, and so the currency of its prices.

import { type Country, type Currency, currencyOf } from '../core/currency.js';
import { getReseller } from '../store/resellers.js';
import { UNATTRIBUTED } from '../store/revenue.js';
import { billingSettings } from './settings.js';

/** The country a reseller sells in: its own, else DEFAULT_COUNTRY. */
export async function resellerCountry(resellerId: string): Promise<Country> {
  const profile = resellerId.startsWith(UNATTRIBUTED) ? undefined : await getReseller(resellerId);
  return profile?.country ?? billingSettings().DEFAULT_COUNTRY;
}

/** The currency a reseller sells in: its country's, else DEFAULT_COUNTRY's. */
export async function resellerCurrency(resellerId: string): Promise<Currency> {
  return currencyOf(await resellerCountry(resellerId));
}
