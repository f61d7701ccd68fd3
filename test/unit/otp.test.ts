import { describe, expect, it } from 'vitest';
import {
  generateCode,
  hashCode,
  hashesMatch,
  normalizeMsisdnLoaded,
  subscriberRef,
} from '../../functions/auth/otp.js';

describe('OTP domain', () => {
  it('makes six-digit codes that keep their leading zeros and vary', () => {
    const codes = new Set(Array.from({ length: 2000 }, generateCode));
    for (const c of codes) expect(c).toMatch(/^\d{6}$/);
    expect(codes.size).toBeGreaterThan(1900);
  });

  it('binds the hash to the account, the issuance and the pepper', () => {
    const h = hashCode('pepper', 'sub-1', 'tok-1', '123456');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashCode('pepper', 'sub-2', 'tok-1', '123456')).not.toBe(h);
    expect(hashCode('pepper', 'sub-1', 'tok-2', '123456')).not.toBe(h);
    expect(hashCode('other', 'sub-1', 'tok-1', '123456')).not.toBe(h);
    expect(hashesMatch(h, hashCode('pepper', 'sub-1', 'tok-1', '123456'))).toBe(true);
    expect(hashesMatch(h, hashCode('pepper', 'sub-1', 'tok-1', '123457'))).toBe(false);
    expect(hashesMatch(h, '')).toBe(false);
  });

  it.each([
    ['+2250712345678', '+2250712345678'],
    ['+225 07 12 34 56 78', '+2250712345678'],
    ['+221 77 123 45 67', '+221771234567'],
    ['+237677123456', '+237677123456'],
  ])('accepts %s as %s', async (input, expected) => {
    expect(await normalizeMsisdnLoaded(input)).toBe(expected);
  });

  it.each([
    '0712345678',
    '2250712345678',
    '+0712345678',
    '+225',
    '+22512',
    '+2250712345678901',
    '+225071234567a',
    '',
  ])('refuses %j', async (input) => {
    expect(await normalizeMsisdnLoaded(input)).toBeUndefined();
  });

  it('derives the subscriber reference from the digits', () => {
    expect(subscriberRef('+2250712345678')).toBe('SUB-2250712345678');
  });
});
