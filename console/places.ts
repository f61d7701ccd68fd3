/**
 * Countries as the screens name them (by name, never an ISO code), a number as people write one
 * there, and times in a reseller's own clock: the platform's table (functions/core/countries.ts),
 * in the screens' chunks only (the login page does not carry it).
 */
import { COUNTRY_FACTS, countryName, localDateTime } from '../functions/core/countries.js';
import { COUNTRIES } from '../functions/core/currency.js';
import { lang, t } from './i18n.js';

/** "Sénégal" (or "Senegal" in English). */
export const countryText = (code: string): string => countryName(code, lang);

/** "Exemple : 77 123 45 67": a phone field's example in the country its numbers are read in. */
export const phoneExample = (country: string | undefined): string | undefined => {
  const example = COUNTRY_FACTS[country ?? '']?.example;
  return example ? t('phone_example', { example }) : undefined;
};

/** "28/11 à 19 h 19" in the country's own time (the reseller's, who reads it). */
export const localAt = (iso: string, country: string | undefined): string =>
  localDateTime(iso, country, lang);

/** The countries a reseller may sell in (the CFA franc's), by name in the reader's language. */
export const resellerCountryOptions = (): (readonly [string, string])[] =>
  COUNTRIES.map((c) => [c, countryText(c)] as const).sort((a, b) => a[1].localeCompare(b[1]));
