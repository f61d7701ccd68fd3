import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVED_COUNTRIES } from '../../bin/phone-metadata.js';
import { SERVED } from '../../console/countries.js';
import { ERROR_TEXT, FIELD_REFUSED, FIELD_TEXT } from '../../console/errors.js';
import { ERROR_STATUS } from '../../functions/core/errors.js';

/** Every error code the OpenAPI document says a route may answer. */
function documentedCodes(): Set<string> {
  const text = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
  return new Set([...text.matchAll(/"(ERR_[A-Z0-9_]+)"/g)].map((m) => m[1] as string));
}

describe("the console's words for the API's refusals", () => {
  const codes = new Set([...Object.keys(ERROR_STATUS), ...documentedCodes()]);

  it('has a French and an English sentence for every code the API can answer', () => {
    expect(codes.size).toBeGreaterThan(20);
    const missing = [...codes].filter((c) => !ERROR_TEXT[c]?.fr.trim() || !ERROR_TEXT[c]?.en.trim());
    expect(missing).toEqual([]);
  });

  it('says them in two languages, not the same English twice', () => {
    for (const [code, words] of Object.entries(ERROR_TEXT)) {
      expect(words.fr, code).not.toBe(words.en);
      expect(words.fr, code).not.toMatch(/\bmust\b|\binvalid\b|\bnot found\b/i);
    }
    for (const [field, words] of [...Object.entries(FIELD_TEXT), ['other', FIELD_REFUSED] as const]) {
      expect(words.fr, field).not.toBe(words.en);
      expect(words.fr, field).not.toMatch(/\bmust\b/);
    }
  });

  it('names no code that the API cannot answer', () => {
    expect(Object.keys(ERROR_TEXT).filter((c) => !codes.has(c))).toEqual([]);
  });
});

describe("the console's served countries", () => {
  it('are the countries of the API numbering plans', () => {
    expect([...SERVED].sort()).toEqual([...SERVED_COUNTRIES].sort());
  });
});
