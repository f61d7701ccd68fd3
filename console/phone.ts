/**
 * Phone numbers as people type them ("07 12 34 56 78", "77 123 45 67", "+225 07…"), read with
 * libphonenumber-js and the same numbering plans as the API (functions/core/phone-metadata.json:
 * the countries served, 3 KB). A chunk of its own, loaded when a number is first sent: the login
 * page's weight does not carry it.
 */
import { type CountryCode, type MetadataJson, parsePhoneNumberFromString } from 'libphonenumber-js/core';
import metadata from '../functions/core/phone-metadata.json';

const PLANS = metadata as unknown as MetadataJson;
const SERVED = Object.keys(metadata.countries) as CountryCode[];

const valid = (typed: string, country?: CountryCode) => {
  const phone = parsePhoneNumberFromString(typed, country ? { defaultCountry: country } : {}, PLANS);
  return phone?.isValid() ? phone : undefined;
};

/**
 * The number in E.164: international as typed (+ or 00), else national in `country`; when that
 * country's plan has no such number, the one served country whose plan has it (a visitor from
 * Senegal typing "77 123 45 67" on a phone set up for Côte d'Ivoire). Undefined when none, or
 * when several countries could have it (then only the international form says which).
 */
export function toE164(typed: string, country: string): string | undefined {
  const text = typed.trim().replace(/^00/, '+');
  if (text.startsWith('+')) return valid(text)?.number;
  const here = valid(text, country as CountryCode);
  if (here) return here.number;
  const elsewhere = SERVED.map((c) => valid(text, c)).filter((p) => p !== undefined);
  return elsewhere.length === 1 ? elsewhere[0]?.number : undefined;
}

/** The served country of an E.164 number (its plan's), or undefined. */
export const countryOf = (e164: string): string | undefined => valid(e164)?.country;

/** "+225 07 12 34 56 78": an E.164 number written to be read. */
export const readable = (e164: string): string => valid(e164)?.formatInternational() ?? e164;

/**
 * The country a number typed without its code is read in: the one of the last number that
 * logged in on this browser, else the browser's region when served, else Côte d'Ivoire.
 */
export function homeCountry(): string {
  let kept: string | null = null;
  try {
    kept = localStorage.getItem('country');
  } catch {
    // Private mode: nothing kept.
  }
  if (kept && SERVED.includes(kept as CountryCode)) return kept;
  const region = navigator.languages
    .map((l) => l.split('-')[1]?.toUpperCase())
    .find((r) => r && SERVED.includes(r as CountryCode));
  return region ?? 'CI';
}

/** Remembers the country of a number that logged in, for the next number typed here. */
export function keepCountry(e164: string): void {
  const country = countryOf(e164);
  try {
    if (country) localStorage.setItem('country', country);
  } catch {
    // Private mode: not kept.
  }
}
