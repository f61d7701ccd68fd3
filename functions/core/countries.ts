// The served countries as people name them, keep time and write a mobile number there.

/**
 * The countries whose numbers the platform serves, as people there name them, keep time and
 * write a mobile number: the portal's country list and example, the console's country names, the
 * local time of an alert or an SMS. Data only (the captive portal and the console import it);
 * test/unit/countries.test.ts holds it against the numbering plans (functions/core/phone.mts):
 * the same countries, and each example a valid number written as `readable` writes it.
 */
export interface CountryFacts {
  fr: string;
  en: string;
  /** IANA time zone: West Africa keeps UTC+0 (Côte d'Ivoire, Senegal...) or UTC+1 (Benin, Cameroon...). */
  tz: string;
  /** A mobile number as people there write it, the national way. */
  example: string;
}

export const COUNTRY_FACTS: Readonly<Record<string, CountryFacts>> = {
  BF: { fr: 'Burkina Faso', en: 'Burkina Faso', tz: 'Africa/Ouagadougou', example: '70 12 34 56' },
  BJ: { fr: 'Bénin', en: 'Benin', tz: 'Africa/Porto-Novo', example: '01 95 12 34 56' },
  CF: { fr: 'Centrafrique', en: 'Central African Republic', tz: 'Africa/Bangui', example: '70 01 23 45' },
  CG: { fr: 'Congo', en: 'Congo', tz: 'Africa/Brazzaville', example: '06 123 4567' },
  CI: { fr: "Côte d'Ivoire", en: "Côte d'Ivoire", tz: 'Africa/Abidjan', example: '07 12 34 56 78' },
  CM: { fr: 'Cameroun', en: 'Cameroon', tz: 'Africa/Douala', example: '6 71 23 45 67' },
  GA: { fr: 'Gabon', en: 'Gabon', tz: 'Africa/Libreville', example: '06 03 12 34' },
  GH: { fr: 'Ghana', en: 'Ghana', tz: 'Africa/Accra', example: '023 123 4567' },
  GN: { fr: 'Guinée', en: 'Guinea', tz: 'Africa/Conakry', example: '601 12 34 56' },
  GQ: { fr: 'Guinée équatoriale', en: 'Equatorial Guinea', tz: 'Africa/Malabo', example: '222 123 456' },
  GW: { fr: 'Guinée-Bissau', en: 'Guinea-Bissau', tz: 'Africa/Bissau', example: '955 012 345' },
  ML: { fr: 'Mali', en: 'Mali', tz: 'Africa/Bamako', example: '65 01 23 45' },
  NE: { fr: 'Niger', en: 'Niger', tz: 'Africa/Niamey', example: '93 12 34 56' },
  NG: { fr: 'Nigeria', en: 'Nigeria', tz: 'Africa/Lagos', example: '0802 123 4567' },
  SN: { fr: 'Sénégal', en: 'Senegal', tz: 'Africa/Dakar', example: '77 123 45 67' },
  TD: { fr: 'Tchad', en: 'Chad', tz: 'Africa/Ndjamena', example: '63 01 23 45' },
  TG: { fr: 'Togo', en: 'Togo', tz: 'Africa/Lome', example: '90 11 23 45' },
};

/** Where a reseller without a country sells (as the API's DEFAULT_COUNTRY). */
export const HOME_COUNTRY = 'CI';

/** A country's name in `lang` (its code when not served). */
export const countryName = (code: string, lang: 'fr' | 'en' = 'fr'): string =>
  COUNTRY_FACTS[code]?.[lang] ?? code;

/** "19 h 19" (French) or "19:19" at `iso` in the country's own time (Abidjan's when not served). */
function localTime(iso: string, country: string | undefined, lang: 'fr' | 'en' = 'fr'): string {
  const timeZone = COUNTRY_FACTS[country ?? '']?.tz ?? 'Africa/Abidjan';
  const hm = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
    .format(new Date(iso))
    .split(':');
  return lang === 'fr' ? `${hm[0]} h ${hm[1]}` : `${hm[0]}:${hm[1]}`;
}

/** "28/11 à 19 h 19" (or "28/11 19:19"): a day and time in the country's own time. */
export function localDateTime(iso: string, country: string | undefined, lang: 'fr' | 'en' = 'fr'): string {
  const timeZone = COUNTRY_FACTS[country ?? '']?.tz ?? 'Africa/Abidjan';
  const day = new Intl.DateTimeFormat('fr-FR', { timeZone, day: '2-digit', month: '2-digit' }).format(
    new Date(iso),
  );
  return `${day}${lang === 'fr' ? ' à' : ''} ${localTime(iso, country, lang)}`;
}
