import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { sessionEndpoint } from '../../functions/auth/session-endpoint.js';
import { signSession } from '../../functions/auth/tokens.js';
import { endpoint, routeHandler } from '../../functions/core/http.js';
import { routes } from '../../functions/routes.js';
import { ESBUILD } from '../../lib/bundling.js';
import { useTestTable } from '../support/db.js';

// A token is checked against its account (revocation), a subscriber's too: a table to read.
useTestTable();

const event = (headers: Record<string, string> = {}) =>
  ({
    version: '2.0',
    routeKey: 'GET /api/v1/auth/session',
    rawPath: '/api/v1/auth/session',
    rawQueryString: '',
    headers,
    requestContext: { http: { method: 'GET', path: '/api/v1/auth/session' }, requestId: 'r-1' },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
const context = { awsRequestId: 'r-1', functionName: 'f', getRemainingTimeInMillis: () => 5000 } as Context;

/** The packages and project files with code in one function's deployed bundle. */
async function bundleInputs(handler: string): Promise<string[]> {
  const out = await build({
    entryPoints: [join('functions', `${handler}.ts`)],
    bundle: true,
    write: false,
    outfile: 'out.mjs',
    platform: 'node',
    format: ESBUILD.format,
    target: ESBUILD.target,
    mainFields: ESBUILD.mainFields,
    alias: ESBUILD.alias,
    metafile: true,
    logLevel: 'silent',
  });
  const [bundle] = Object.values(out.metafile.outputs);
  return Object.entries(bundle?.inputs ?? {})
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([file]) => file);
}

describe('session routes and the others', () => {
  it('every write of a session route may write the table, where the activity log records it', () => {
    const writes = routes.filter((r) => r.method !== 'GET' && ['jwt', 'reseller', 'admin'].includes(r.auth));
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.filter((r) => r.access.table !== 'write').map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('a session route cannot be built without the token check, nor an open one with it (types)', () => {
    const reply = async () => ({ status: 204 });
    // @ts-expect-error GET /auth/session is a `jwt` route: its handler must check the token.
    expect(() => endpoint('GET /api/v1/auth/session', {}, reply)).not.toThrow();
    // @ts-expect-error GET /forfaits is public: no token to check.
    expect(() => sessionEndpoint('GET /api/v1/forfaits', {}, reply)).not.toThrow();
  });

  it('sessionEndpoint refuses a request without a valid token and hands the handler its principal', async () => {
    const handler = sessionEndpoint('GET /api/v1/auth/session', {}, async ({ principal }) => ({
      status: 200,
      body: { sub: principal.sub },
    }));
    const anonymous = await handler(event(), context);
    expect(anonymous.statusCode).toBe(401);
    const forged = await handler(event({ authorization: 'Bearer a.b.c' }), context);
    expect(forged.statusCode).toBe(401);
    const sub = randomUUID();
    const { token } = await signSession({ sub, role: 'subscriber', ref: 'SUB-1' });
    const ok = await handler(event({ authorization: `Bearer ${token}` }), context);
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(ok.body as string)).toEqual({ sub });
  });

  it('a session route built without a token check fails closed, whatever the caller sends', async () => {
    const handler = routeHandler('GET /api/v1/auth/session', {}, async () => ({ status: 200 }), undefined);
    const { token } = await signSession({ sub: randomUUID(), role: 'subscriber', ref: 'SUB-1' });
    expect((await handler(event({ authorization: `Bearer ${token}` }), context)).statusCode).toBe(500);
  });

  it('only the bundles of session routes (and the OTP check that signs tokens) carry the JWT library', async () => {
    const jose = (inputs: string[]) => inputs.some((f) => f.includes('node_modules/jose/'));
    expect(jose(await bundleInputs('auth/otp-request'))).toBe(false);
    expect(jose(await bundleInputs('radius/radius-authorize'))).toBe(false);
    // A public handler whose modules name the principal types (monitoring/dashboard.ts imports
    // core/principal.ts): the types carry no token code with them.
    expect(jose(await bundleInputs('monitoring/status-get'))).toBe(false);
    expect(jose(await bundleInputs('auth/session'))).toBe(true);
    expect(jose(await bundleInputs('auth/otp-verify'))).toBe(true);
  });
});
