import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { OUTPUT, SERVED_COUNTRIES, sourceMetadata, subset } from '../../bin/phone-metadata.js';
import { normalizeMsisdnLoaded } from '../../functions/auth/otp.js';
import { handler as otpRequest } from '../../functions/auth/otp-request.js';
import { readable, servedE164 } from '../../functions/core/phone.mjs';

const require = createRequire(import.meta.url);
/** libphonenumber's example mobile number of every country, national significant digits. */
const MOBILE_EXAMPLES = require('libphonenumber-js/examples.mobile.json') as Record<string, string>;
const SOURCE = sourceMetadata();
const callingCode = (country: string) => (SOURCE.countries[country] as string[])[0];
const e164 = (country: string) => `+${callingCode(country)}${MOBILE_EXAMPLES[country]}`;

/** Real subscriber numbers as people type them (operators' current mobile ranges). */
const TYPED: [string, string][] = [
  ['+225 07 07 12 34 56', '+2250707123456'], // Côte d'Ivoire, Orange
  ['+225 05 05 12 34 56', '+2250505123456'], // Côte d'Ivoire, MTN
  ['+225 01 01 12 34 56', '+2250101123456'], // Côte d'Ivoire, Moov
  ['+221 77 123 45 67', '+221771234567'], // Senegal, Orange
  ['+223 76 12 34 56', '+22376123456'], // Mali, Orange
  ['+226 70 12 34 56', '+22670123456'], // Burkina Faso, Orange
  ['+227 96 12 34 56', '+22796123456'], // Niger, Airtel
  ['+228 90 12 34 56', '+22890123456'], // Togo, Togocom
  ['+229 01 97 12 34 56', '+2290197123456'], // Benin, MTN (10 digits since 2024)
  ['+245 955 123 456', '+245955123456'], // Guinea-Bissau
  ['+237 6 77 12 34 56', '+237677123456'], // Cameroon, MTN
  ['+241 06 12 34 56', '+24106123456'], // Gabon
  ['+242 06 612 3456', '+242066123456'], // Congo, MTN
  ['+236 75 12 34 56', '+23675123456'], // Central African Republic, Telecel
  ['+235 66 12 34 56', '+23566123456'], // Chad, Moov
  ['+240 222 123 456', '+240222123456'], // Equatorial Guinea
  ['+233 24 123 4567', '+233241234567'], // Ghana, MTN
  ['+234 803 123 4567', '+2348031234567'], // Nigeria, MTN
  ['+224 622 12 34 56', '+224622123456'], // Guinea, Orange
];

describe('MSISDN numbering plans (the countries served)', () => {
  it('ships the metadata bin/phone-metadata.ts generates from the installed libphonenumber-js', () => {
    const committed = JSON.parse(readFileSync(OUTPUT, 'utf8'));
    expect(committed).toEqual(subset(SOURCE, SERVED_COUNTRIES));
    expect(Object.keys(committed.countries).sort()).toEqual([...SERVED_COUNTRIES].sort());
    expect(Object.keys(committed.countries)).toHaveLength(17);
  });

  it.each(SERVED_COUNTRIES)("accepts %s's mobile numbers", (country) => {
    expect(servedE164(e164(country))).toBe(e164(country));
  });

  it.each(TYPED)('accepts %s as %s', async (typed, stored) => {
    expect(await normalizeMsisdnLoaded(typed)).toBe(stored);
  });

  it("refuses every other country's mobile numbers", async () => {
    const others = Object.keys(MOBILE_EXAMPLES).filter((c) => !SERVED_COUNTRIES.includes(c as never));
    expect(others.length).toBeGreaterThan(200);
    const checked = await Promise.all(others.map(async (c) => [c, await normalizeMsisdnLoaded(e164(c))]));
    const accepted = checked.filter(([, n]) => n !== undefined).map(([c]) => c);
    expect(accepted).toEqual([]);
  });

  it.each([
    '+33612345678', // France
    '+14155552671', // United States
    '+447911123456', // United Kingdom
    '+212612345678', // Morocco
    '+243812345678', // DR Congo
    '+80012345678', // international freephone, no country
    '+22507123456789', // Côte d'Ivoire, too long for its plan
    '+2253123456789', // Côte d'Ivoire, no such range
    '+22512345678', // Côte d'Ivoire, the 8-digit plan retired in 2021
  ])('refuses %s', async (msisdn) => {
    expect(await normalizeMsisdnLoaded(msisdn)).toBeUndefined();
  });

  it.each(['+33612345678', '+2348031234567x', '+22512345678'])(
    'POST /auth/otp/request answers 400 ERR_MSISDN_INVALID for %s',
    async (msisdn) => {
      const event = {
        version: '2.0',
        routeKey: 'POST /api/v1/auth/otp/request',
        rawPath: '/api/v1/auth/otp/request',
        rawQueryString: '',
        headers: { 'content-type': 'application/json' },
        requestContext: { http: { method: 'POST', path: '/api/v1/auth/otp/request' }, requestId: 'r-1' },
        body: JSON.stringify({ msisdn }),
        isBase64Encoded: false,
      } as unknown as APIGatewayProxyEventV2;
      const context = {
        awsRequestId: 'r-1',
        functionName: 'otp-request',
        getRemainingTimeInMillis: () => 5000,
      } as unknown as Context;
      const res = (await otpRequest(event, context)) as APIGatewayProxyStructuredResultV2;
      expect(res.statusCode).toBe(400);
      expect(JSON.parse(res.body as string).error.code).toBe('ERR_MSISDN_INVALID');
    },
  );
});

describe('a number as people read it (the console header)', () => {
  it("is national in the reseller's country, international in another, as given when no plan reads it", () => {
    const ci = readable('+2250700000001', 'CI');
    expect(ci.startsWith('07')).toBe(true);
    expect(ci.replace(/\D/g, '')).toBe('0700000001');
    expect(readable(e164('SN'), 'CI')).toMatch(/^\+221 /);
    expect(readable('+22500000000', 'CI')).toBe('+22500000000');
  });
});
