// CSV as a spreadsheet on the reseller's computer opens it (RFC 4180, `;` or `,`, a byte-order mark).

import { COUNTRY_FACTS } from './countries.js';

/**
 * CSV as a spreadsheet on the reseller's computer opens it: a French spreadsheet reads `;`
 * between fields (its decimal separator is the comma), an English one `,`; both read UTF-8
 * only after a byte-order mark (without it, "Côte" shows as "CÃ´te"). Fields are quoted as RFC
 * 4180 says (a field with the separator, a double quote, a CR or a LF; quotes doubled); lines
 * end with CRLF. A text field a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab or
 * CR first: a name a reseller typed) is prefixed with `'`, so that opening the file runs
 * nothing; numbers are written as they are (a refund's negative amount stays a number). No CSV
 * library is among the dependencies: this is all of it.
 */
export type CsvLang = 'fr' | 'en';

const FORMULA = /^[=+\-@\t\r]/;

const separatorOf = (lang: CsvLang) => (lang === 'fr' ? ';' : ',');

export function csvField(value: string | number, separator = ','): string {
  if (typeof value === 'number') return String(value);
  const text = FORMULA.test(value) ? `'${value}` : value;
  return text.includes(separator) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of fields as one CSV file in the reader's language's form, the header first. */
export const csvText = (rows: readonly (readonly (string | number)[])[], lang: CsvLang = 'fr'): string => {
  const separator = separatorOf(lang);
  return `\ufeff${rows.map((r) => `${r.map((f) => csvField(f, separator)).join(separator)}\r\n`).join('')}`;
};

/**
 * An instant as the reseller reads it in its own country's time: `28/11/2026 19:19` in French,
 * `2026-11-28 19:19` in English (both sort and parse in a spreadsheet); '' for none.
 */
export function csvDate(iso: string | undefined, country: string | undefined, lang: CsvLang): string {
  if (!iso) return '';
  const timeZone = COUNTRY_FACTS[country ?? '']?.tz ?? 'Africa/Abidjan';
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return lang === 'fr'
    ? `${parts.day}/${parts.month}/${parts.year} ${parts.hour}:${parts.minute}`
    : `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** A UTC day (`2026-11-28`, as the ledger keeps days) as `28/11/2026` in French. */
export const csvDay = (day: string, lang: CsvLang): string =>
  lang === 'fr' ? `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}` : day;
