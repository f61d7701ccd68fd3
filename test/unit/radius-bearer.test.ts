import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { digestMatches, digestOf, safeEqual } from '../../functions/core/compare.js';
import { resetSecrets } from '../../functions/core/secrets.js';
import { handler } from '../../functions/radius/radius-client.js';

/**
 * FreeRADIUS's bearer: the secret holds one token per RADIUS server (white space or commas
 * between them). The endpoint keeps the tokens' digests, hashed once per secret value
 * (functions/core/caller.ts): every token still opens, nothing else does, and a changed secret is
 * read as changed.
 */
// A client lookup of no address: answered 404 (no router) once the bearer opens, without the table.
const event = (token: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /api/v1/radius/client',
    rawPath: '/api/v1/radius/client',
    rawQueryString: '',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ 'Hotspot-NAS-IP': { type: 'string', value: ['not-an-address'] } }),
    requestContext: {
      requestId: 'r',
      http: { method: 'POST', path: '/api/v1/radius/client', sourceIp: '127.0.0.1' },
    },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
const status = async (token: string) =>
  (await handler(event(token), { awsRequestId: 'r' } as Context)).statusCode;

describe('the RADIUS servers bearer tokens', () => {
  const saved = process.env.RADIUS_API_SECRET;
  afterAll(() => {
    process.env.RADIUS_API_SECRET = saved;
    resetSecrets();
  });

  it('opens with each token of the secret and with nothing else', async () => {
    process.env.RADIUS_API_SECRET = 'token-one-0123456789 token-two-0123456789,token-three-0123456789';
    resetSecrets();
    for (const t of ['token-one-0123456789', 'token-two-0123456789', 'token-three-0123456789'])
      expect(await status(t), t).toBe(404);
    for (const t of ['token-four-0123456789', 'token-one', '', 'token-one-0123456789 token-two-0123456789'])
      expect(await status(t), t).toBe(502);
  });

  it('reads a changed secret as changed (the kept digests follow its value)', async () => {
    process.env.RADIUS_API_SECRET = 'token-five-0123456789';
    resetSecrets();
    expect(await status('token-one-0123456789')).toBe(502);
    expect(await status('token-five-0123456789')).toBe(404);
  });

  it('digestMatches is safeEqual against each kept digest', () => {
    const kept = ['a', 'bb', 'ccc'].map(digestOf);
    for (const given of ['a', 'bb', 'ccc', 'd', '', 'aa'])
      expect(digestMatches(given, kept)).toBe(['a', 'bb', 'ccc'].some((e) => safeEqual(given, e)));
    expect(digestMatches('a', [])).toBe(false);
  });
});
