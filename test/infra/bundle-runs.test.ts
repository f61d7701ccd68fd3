import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bundle } from '../../bench/bundle.js';
import { useTestTable } from '../support/db.js';

const table = useTestTable({ seed: true });
const run = promisify(execFile);
const out = mkdtempSync(join(tmpdir(), 'bundles-'));

/**
 * Runs a function the way Lambda does: its deployed bundle (same esbuild options as the stack,
 * the credential-provider stand-in included) in a fresh node, credentials only in the
 * environment, DynamoDB reached through the SDK's own endpoint setting. (DynamoDB Local keeps
 * tables per access key and region: the test run's are `local`/`local`.)
 */
async function invoke(handler: string, event: Record<string, unknown>) {
  const b = await bundle(join('functions', `${handler}.ts`), out, handler.replace('/', '-'));
  const script = `
    const { handler } = await import(${JSON.stringify(`file://${b.file}`)});
    const res = await handler(${JSON.stringify(event)}, { awsRequestId: 'r-1', functionName: 'f', getRemainingTimeInMillis: () => 5000 });
    process.stdout.write(JSON.stringify(res));`;
  const { DYNAMODB_ENDPOINT, ...env } = process.env;
  const res = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...env,
      TABLE_NAME: table.name(),
      AWS_ENDPOINT_URL_DYNAMODB: DYNAMODB_ENDPOINT,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local-secret',
      AWS_SESSION_TOKEN: 'local-session',
      LOG_LEVEL: 'ERROR',
    },
  });
  if (process.env.DEBUG_BUNDLES) process.stderr.write(res.stderr);
  return JSON.parse(res.stdout) as { statusCode: number; body: string; headers: Record<string, string> };
}

const event = (method: string, path: string, extra: Record<string, unknown> = {}) => ({
  version: '2.0',
  routeKey: `${method} ${path}`,
  rawPath: path,
  rawQueryString: '',
  headers: {},
  requestContext: { http: { method, path }, requestId: 'r-1' },
  isBase64Encoded: false,
  ...extra,
});

describe('the deployed bundles run', () => {
  it('reads DynamoDB with credentials from the environment (GET /forfaits)', async () => {
    const res = await invoke('billing/forfaits-list', event('GET', '/api/v1/forfaits'));
    expect(res.statusCode).toBe(200);
    expect((JSON.parse(res.body) as { total: number }).total).toBeGreaterThan(0);
  });

  it('verifies tokens and answers a JSON 401 without one (GET /auth/session)', async () => {
    const res = await invoke('auth/session', event('GET', '/api/v1/auth/session'));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'ERR_UNAUTHENTICATED' } });
  });

  it('validates and answers the OTP verify flow (POST /auth/otp/verify)', async () => {
    const res = await invoke(
      'auth/otp-verify',
      event('POST', '/api/v1/auth/otp/verify', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ msisdn: '+2250700000099', otp: '123456' }),
      }),
    );
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'ERR_OTP_INVALID' } });
  });
});
