// CSV as RFC 4180 writes it.

/**
 * CSV as RFC 4180 writes it (no CSV library is among the dependencies): a field with a comma,
 * a double quote, a CR or a LF is quoted, its quotes doubled; lines end with CRLF. A text field
 * a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, tab or CR first: a name a reseller
 * typed) is prefixed with `'`, so that opening the file runs nothing; numbers are written as
 * they are (a refund's negative amount stays a number).
 */
const FORMULA = /^[=+\-@\t\r]/;

export function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const text = FORMULA.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of fields as one CSV text, the header first. */
export const csvText = (rows: readonly (readonly (string | number)[])[]): string =>
  rows.map((r) => `${r.map(csvField).join(',')}\r\n`).join('');
