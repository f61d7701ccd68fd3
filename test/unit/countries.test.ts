import { describe, expect, it } from 'vitest';
import { SERVED_COUNTRIES } from '../../bin/phone-metadata.js';
import { requireLoginMsisdn } from '../../functions/auth/otp.js';
import { COUNTRY_FACTS, countryName, localDateTime } from '../../functions/core/countries.js';
import { nationalE164, nationalReadings, readable } from '../../functions/core/phone.mjs';

describe('the served countries as people name them and write their numbers', () => {
  it('are the numbering plans’ countries, each example a valid number written as people write it', () => {
    expect(Object.keys(COUNTRY_FACTS).sort()).toEqual([...SERVED_COUNTRIES].sort());
    for (const [iso, facts] of Object.entries(COUNTRY_FACTS)) {
      const e164 = nationalE164(facts.example, iso);
      expect(e164, `${iso} ${facts.example}`).toBeDefined();
      expect(readable(e164 as string, iso), iso).toBe(
        facts.example.replace(/ /g, '\u00a0').replace(/\u00a0/g, ' '),
      );
    }
  });

  it('write an Ivorian number in pairs (07 00 00 00 01), as Ivorians do', () => {
    expect(readable('+2250700000001', 'CI')).toBe('07 00 00 00 01');
  });

  it('read a national number typed under the wrong country in the one country where it is valid', () => {
    // A Senegalese number typed on a page that guessed Côte d'Ivoire.
    expect(nationalReadings('77 555 66 77')).toEqual(['+221775556677']);
    expect(requireLoginMsisdn('77 555 66 77', 'CI')).toBe('+221775556677');
    // Valid in the country guessed: read there first.
    expect(requireLoginMsisdn('07 00 00 00 01', 'CI')).toBe('+2250700000001');
    expect(() => requireLoginMsisdn('12', 'CI')).toThrow();
  });

  it('name a country in French or English, and tell the time in its own zone', () => {
    expect(countryName('SN')).toBe('Sénégal');
    expect(countryName('SN', 'en')).toBe('Senegal');
    // 19:19 UTC is 20 h 19 in Benin (UTC+1) and 19 h 19 in Côte d'Ivoire.
    expect(localDateTime('2026-11-28T19:19:44.267Z', 'BJ')).toBe('28/11 à 20 h 19');
    expect(localDateTime('2026-11-28T19:19:44.267Z', 'CI', 'en')).toBe('28/11 19:19');
    expect(localDateTime('2026-11-28T23:30:00Z', 'CM')).toBe('29/11 à 00 h 30');
  });
});
