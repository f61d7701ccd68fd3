import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cinetpay } from '../../functions/billing/gateways/cinetpay.js';
import {
  anySignatureMatches,
  type SignedEventScheme,
  secretKeys,
  verifiedEvent,
} from '../../functions/billing/gateways/signatures.js';
import { resetConfig } from '../../functions/core/config.js';
import { currencyOf, isCountry } from '../../functions/core/currency.js';
import { resetSecrets } from '../../functions/core/secrets.js';
import { CINETPAY_SIGNED_FIELDS, cinetpayToken } from '../support/fake-providers.js';

/** HMAC-SHA256 of `data` under `key`, lower-case hex (what PHP's hash_hmac answers). */
const hmacHex = (key: string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest('hex');

describe("CinetPay's x-token", () => {
  beforeEach(() => {
    vi.stubEnv('CINETPAY_SITE_ID', '445160');
    vi.stubEnv('CINETPAY_API_KEY', 'ak');
    vi.stubEnv('CINETPAY_SECRET_KEY', 'sk');
    resetConfig();
    resetSecrets();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
    resetSecrets();
  });
  /** The CinetPay adapter, as a deployment builds it, given a notification. */
  const verify = (form: URLSearchParams, token: string) =>
    cinetpay.adapter().verifyNotification?.({ 'x-token': token }, form.toString(), Date.now());

  it('signs the 16 documented fields concatenated in their documented order, a missing one as empty', async () => {
    // The documented order, written as CinetPay's docs list it.
    expect(CINETPAY_SIGNED_FIELDS.join(' ')).toBe(
      'cpm_site_id cpm_trans_id cpm_trans_date cpm_amount cpm_currency signature payment_method cel_phone_num ' +
        'cpm_phone_prefixe cpm_language cpm_version cpm_payment_config cpm_page_action cpm_custom ' +
        'cpm_designation cpm_error_message',
    );
    // Posted in another order than it is signed: the order of the signature is the documented one.
    const form = new URLSearchParams(
      'cpm_trans_id=T1&cpm_site_id=445160&cpm_amount=100&cpm_currency=XOF&cpm_version=V4&cpm_error_message=SUCCES',
    );
    await expect(verify(form, hmacHex('sk', '445160T1100XOFV4SUCCES'))).resolves.toMatchObject({
      kind: 'payment',
      notification: { payment_id: 'T1', amount_fcfa: 100 },
    });
    // All 16 given, each different: signed in that order, and each one is signed.
    const full = new URLSearchParams(
      CINETPAY_SIGNED_FIELDS.map((f, i): [string, string] => [f, f === 'cpm_site_id' ? '445160' : `v${i}`]),
    );
    await expect(verify(full, cinetpayToken(full, 'sk'))).resolves.toMatchObject({ kind: 'payment' });
    for (const field of CINETPAY_SIGNED_FIELDS) {
      const changed = new URLSearchParams(full);
      changed.set(field, 'changed');
      await expect(verify(changed, cinetpayToken(full, 'sk')), field).rejects.toMatchObject({
        code: 'ERR_SIGNATURE_INVALID',
      });
    }
  });

  it('is the lower-case hex HMAC-SHA256 that PHP hash_hmac answers', async () => {
    const form = new URLSearchParams('cpm_site_id=445160&cpm_trans_id=T2&cpm_amount=200');
    const token = createHmac('sha256', 'sk').update('445160T2200').digest('hex');
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    await expect(verify(form, token)).resolves.toMatchObject({ kind: 'payment' });
    await expect(verify(form, hmacHex('another key', '445160T2200'))).rejects.toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
    });
  });
});

describe('a signed JSON event (FedaPay, Wave)', () => {
  const scheme: SignedEventScheme = {
    signature: { header: 'x-demo-signature', key: 's', joiner: '.' },
    typeAt: 'name',
    statuses: { 'payment.done': 'completed' },
  };
  const nowMs = 1_700_000_000_000;
  const gateway = { webhookSecret: async () => 'whsec', toleranceS: 300 };
  const signed = (rawBody: string) => ({
    headers: { 'x-demo-signature': `t=1700000000,s=${hmacHex('whsec', `1700000000.${rawBody}`)}` },
    rawBody,
    nowMs,
  });

  /** A notification whose signature header is `header`, its `{sig}` the body's right signature. */
  const withHeader = (header: string, rawBody = '{"name":"payment.done","id":"E1"}') => {
    const t = /t=([^,\s]*)/.exec(header)?.[1] ?? '1700000000';
    const sig = hmacHex('whsec', `${t}.${rawBody}`);
    return { headers: { 'x-demo-signature': header.replaceAll('{sig}', sig) }, rawBody, nowMs };
  };

  it("reads the header's timestamp and every s= signature of it (FedaPay's X-FEDAPAY-SIGNATURE)", async () => {
    for (const header of [
      't=1700000000,s=ab12,s={sig}',
      't=1700000000,s={sig},s=cd34',
      ' t=1700000000 , s={sig} ',
    ]) {
      await expect(verifiedEvent(scheme, withHeader(header), gateway), header).resolves.toMatchObject({
        claimed: 'completed',
      });
    }
  });

  it.each([
    ['no timestamp', 's={sig}'],
    ['no signature', 't=1700000000'],
    ['a timestamp that is not a number', 't=soon,s={sig}'],
    ['another scheme only (v1=)', 't=1700000000,v1={sig}'],
    ['an empty header', ''],
  ])('refuses a header with %s', async (_name, header) => {
    await expect(verifiedEvent(scheme, withHeader(header), gateway)).rejects.toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
    });
  });

  it('answers the status its type claims and the id its redeliveries keep', async () => {
    await expect(
      verifiedEvent(scheme, signed('{"name":"payment.done","id":"E1"}'), gateway),
    ).resolves.toMatchObject({
      claimed: 'completed',
      id: 'event:E1',
    });
    await expect(
      verifiedEvent(scheme, signed('{"name":"payment.done","id":42}'), gateway),
    ).resolves.toMatchObject({
      id: 'event:42',
    });
    // No id of its own (or an empty one): the signature's, the same on every redelivery.
    const body = '{"name":"payment.done","id":""}';
    const first = await verifiedEvent(scheme, signed(body), gateway);
    expect(first).toMatchObject({ id: expect.stringMatching(/^signature:1700000000:[0-9a-f]{64}$/) });
    await expect(verifiedEvent(scheme, signed(body), gateway)).resolves.toEqual(first);
  });

  it('ignores what is signed but claims nothing: not a JSON object, another type, an inherited name', async () => {
    for (const [body, reason] of [
      ['not json', 'not_json'],
      ['42', 'not_json'],
      ['null', 'not_json'],
      ['{"name":"payment.created"}', 'event payment.created'],
      ['{"name":"toString"}', 'event toString'],
      ['{"name":"__proto__"}', 'event __proto__'],
    ]) {
      await expect(verifiedEvent(scheme, signed(body as string), gateway)).resolves.toEqual({
        kind: 'ignored',
        reason,
      });
    }
  });

  it('checks the signature before it reads the body', async () => {
    const forged = { ...signed('not json'), rawBody: '{"name":"payment.done"}' };
    await expect(verifiedEvent(scheme, forged, gateway)).rejects.toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
    });
    await expect(
      verifiedEvent(scheme, { ...signed('not json'), nowMs: nowMs + 301_000 }, gateway),
    ).rejects.toMatchObject({ code: 'ERR_SIGNATURE_STALE' });
  });
});

describe('signature comparison with rotating keys', () => {
  const data = '1700000000.{"name":"transaction.approved"}';
  it('accepts a signature made with the old key while the secret holds new,old', () => {
    const old = hmacHex('old-key', data);
    expect(anySignatureMatches(secretKeys('new-key, old-key'), data, [old])).toBe(true);
    expect(anySignatureMatches(secretKeys('new-key'), data, [old])).toBe(false);
  });

  it('accepts a signature in upper case and refuses anything that is not hex of the right length', () => {
    const good = hmacHex('k', data);
    expect(anySignatureMatches(['k'], data, [good.toUpperCase()])).toBe(true);
    expect(anySignatureMatches(['k'], data, [good.slice(0, 62)])).toBe(false);
    expect(anySignatureMatches(['k'], data, [`${good.slice(0, 63)}z`])).toBe(false);
    expect(anySignatureMatches(['k'], data, [])).toBe(false);
  });

  it('ignores empty keys, so that a trailing comma opens nothing', () => {
    expect(secretKeys('a,,b, ,')).toEqual(['a', 'b']);
    expect(anySignatureMatches(secretKeys(','), data, [hmacHex('', data)])).toBe(false);
  });
});

describe('the currency of a country', () => {
  it('is XOF in the UEMOA and XAF in the CEMAC', () => {
    for (const c of ['BJ', 'BF', 'CI', 'GW', 'ML', 'NE', 'SN', 'TG'] as const)
      expect(currencyOf(c)).toBe('XOF');
    for (const c of ['CM', 'CF', 'CG', 'GA', 'GQ', 'TD'] as const) expect(currencyOf(c)).toBe('XAF');
  });

  it('knows no country outside the two zones', () => {
    expect(isCountry('FR')).toBe(false);
    expect(isCountry('ci')).toBe(false);
  });
});
