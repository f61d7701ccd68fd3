import { randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerToken, signSession, verifySession } from '../../functions/auth/tokens.js';
import { clock } from '../../functions/core/clock.js';
import { openCursor, sealCursor } from '../../functions/core/cursor.js';
import { AppError } from '../../functions/core/errors.js';
import { resetSecrets } from '../../functions/core/secrets.js';
import { useTestTable } from '../support/db.js';

// An operator's token is checked against its account (revocation): a table to look in.
useTestTable();

const secret = () => new TextEncoder().encode(process.env.JWT_SECRET as string);
const base = { role: 'subscriber', ref: 'SUB-2250712345678' };

async function codeOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );
}

async function signed(
  claims: Record<string, unknown>,
  options: {
    iss?: string;
    aud?: string;
    exp?: number;
    sub?: string | null;
    alg?: string;
    key?: Uint8Array;
  } = {},
): Promise<string> {
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .setIssuer(options.iss ?? 'hotspot-platform')
    .setAudience(options.aud ?? 'hotspot-api')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600);
  if (options.sub !== null) jwt = jwt.setSubject(options.sub ?? randomUUID());
  return jwt.sign(options.key ?? secret());
}

describe('session tokens', () => {
  afterEach(() => clock.reset());

  it('round-trips the subject, role, reference and reseller id', async () => {
    const sub = randomUUID();
    const resellerId = randomUUID();
    const { token, exp } = await signSession({ sub, role: 'reseller', ref: 'SUB-1', resellerId });
    const p = await verifySession(token);
    expect(p).toMatchObject({ sub, role: 'reseller', ref: 'SUB-1', resellerId, exp });
  });

  it('expires 900 seconds after issue', async () => {
    const now = Date.now();
    clock.set(() => now);
    const { token } = await signSession({ sub: randomUUID(), role: 'subscriber', ref: 'SUB-1' });
    clock.set(() => now + 899_000);
    expect(await codeOf(verifySession(token))).toBe('ok');
    clock.set(() => now + 901_000);
    expect(await codeOf(verifySession(token))).toBe('ERR_UNAUTHENTICATED');
  });

  it('refuses an unsigned token (alg none)', async () => {
    const token = new UnsecuredJWT(base)
      .setIssuer('hotspot-platform')
      .setAudience('hotspot-api')
      .setSubject(randomUUID())
      .setIssuedAt()
      .setExpirationTime('10m')
      .encode();
    expect(await codeOf(verifySession(token))).toBe('ERR_UNAUTHENTICATED');
  });

  it('refuses a token signed with another key', async () => {
    const token = await signed(base, {
      key: new TextEncoder().encode('another-key-of-enough-length-000000'),
    });
    expect(await codeOf(verifySession(token))).toBe('ERR_UNAUTHENTICATED');
  });

  it('refuses a token signed with another HMAC algorithm even with the right key', async () => {
    expect(await codeOf(verifySession(await signed(base, { alg: 'HS512' })))).toBe('ERR_UNAUTHENTICATED');
  });

  it('refuses a token whose payload was altered after signing', async () => {
    const token = await signed(base);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p as string, 'base64url').toString());
    payload.role = 'admin';
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
    expect(await codeOf(verifySession(forged))).toBe('ERR_UNAUTHENTICATED');
  });

  it.each([
    ['a wrong issuer', { iss: 'someone-else' }],
    ['a wrong audience', { aud: 'another-api' }],
    ['no subject', { sub: null }],
  ])('refuses a token with %s', async (_name, options) => {
    expect(await codeOf(verifySession(await signed(base, options)))).toBe('ERR_UNAUTHENTICATED');
  });

  it('refuses an unknown role and a reseller without reseller id', async () => {
    expect(await codeOf(verifySession(await signed({ ...base, role: 'root' })))).toBe('ERR_UNAUTHENTICATED');
    expect(await codeOf(verifySession(await signed({ ...base, role: 'reseller' })))).toBe(
      'ERR_UNAUTHENTICATED',
    );
  });

  it('accepts only a well-formed Bearer header', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    for (const bad of [undefined, '', 'Basic abc', 'Bearer', 'bearer abc', 'Bearer a b']) {
      expect(() => bearerToken(bad)).toThrow(AppError);
    }
  });
});

describe('session key rotation (JWT_SECRET as a key ring)', () => {
  const plain = process.env.JWT_SECRET as string;
  const fresh = 'k1-0123456789abcdef0123456789abcdef';
  const useSecret = (value: string) => {
    process.env.JWT_SECRET = value;
    resetSecrets();
  };
  const ring = (current: string, keys: Record<string, string>) => JSON.stringify({ current, keys });
  const kidOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()) as { kid?: string }).kid;
  const claims = { sub: randomUUID(), role: 'subscriber', ref: 'SUB-2250712345678' } as const;
  afterEach(() => useSecret(plain));

  it('signs with the current key and names it; a token of the old key verifies until the key leaves the ring', async () => {
    useSecret(plain);
    const before = (await signSession(claims)).token;
    expect(kidOf(before)).toBe('k0');
    const cursor = await sealCursor('test', 'scope', { page: 2 });

    useSecret(ring('k1', { k0: plain, k1: fresh }));
    const after = (await signSession(claims)).token;
    expect(kidOf(after)).toBe('k1');
    expect((await verifySession(before)).sub).toBe(claims.sub);
    expect((await verifySession(after)).sub).toBe(claims.sub);
    // A page cursor made just before the rotation still reads its next page.
    expect(await openCursor('test', 'scope', cursor)).toEqual({ page: 2 });

    useSecret(ring('k1', { k1: fresh }));
    expect(await codeOf(verifySession(before))).toBe('ERR_UNAUTHENTICATED');
    expect((await verifySession(after)).sub).toBe(claims.sub);
  });

  it('refuses a token naming a key id the ring does not have, or no id once k0 is gone', async () => {
    useSecret(ring('k1', { k1: fresh }));
    const unknown = await new SignJWT({ role: 'subscriber', ref: 'SUB-2250712345678' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k9' })
      .setIssuer('hotspot-platform')
      .setAudience('hotspot-api')
      .setSubject(randomUUID())
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(fresh));
    expect(await codeOf(verifySession(unknown))).toBe('ERR_UNAUTHENTICATED');
    expect(await codeOf(verifySession(await signed(base, { key: new TextEncoder().encode(fresh) })))).toBe(
      'ERR_UNAUTHENTICATED',
    );
  });

  it('refuses a malformed ring without quoting it', async () => {
    useSecret('{"current":"k2","keys":{"k1":"0123456789abcdef0123456789abcdef"}}');
    await expect(signSession(claims)).rejects.toThrow(/names no key/);
    useSecret('{"current":"k1","keys":{"k1":"short"}}');
    await expect(signSession(claims)).rejects.toThrow(/32\+ characters/);
    useSecret('{not json SECRETVALUE');
    await expect(signSession(claims)).rejects.toThrow(/^JWT_SECRET: not JSON, nor a plain key$/);
  });
});
