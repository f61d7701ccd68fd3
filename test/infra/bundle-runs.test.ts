import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { signSession } from '../../functions/auth/tokens.js';
import { registerEdge } from '../../functions/edge/edge-auth.js';
import { handler as keysFunction } from '../../functions/routers/router-keys.js';
import { register } from '../../functions/routers/routers.js';
import { open } from '../../functions/routers/secret-box.js';
import { countersOf, scopeOf } from '../../functions/store/counters.js';
import { getSession, type RadiusSession, Session } from '../../functions/store/sessions.js';
import { bundle } from '../support/bundles.js';
import { useTestTable } from '../support/db.js';
import { hotspotOf } from '../support/hotspots.js';

const table = useTestTable({ seed: true });
const run = promisify(execFile);
const out = mkdtempSync(join(tmpdir(), 'bundles-'));

/**
 * Runs a function the way Lambda does: its deployed bundle (same esbuild options as the stack,
 * the credential-provider stand-in included) in a fresh node, credentials only in the
 * environment, DynamoDB reached through the SDK's own endpoint setting. (DynamoDB Local keeps
 * tables per access key and region: the test run's are `local`/`local`.)
 */
async function invoke(
  handler: string,
  event: Record<string, unknown>,
  extraEnv: Record<string, string> = {},
) {
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
      ...extraEnv,
    },
  });
  if (process.env.DEBUG_BUNDLES) process.stderr.write(res.stderr);
  // The handler's answer is the last line; the function's own log lines come before it.
  const answer = JSON.parse(res.stdout.trimEnd().split('\n').at(-1) as string) as {
    statusCode: number;
    body: string;
    headers: Record<string, string>;
  };
  return { ...answer, logs: res.stdout + res.stderr };
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

  it('without credentials in the environment, fails loudly rather than looking elsewhere', async () => {
    // The credential stand-in (lib/lambda/credentials.ts) reads the environment only, as Lambda
    // fills it; an empty one is a clear error in the function's log, not a silent IMDS probe.
    const res = await invoke('billing/forfaits-list', event('GET', '/api/v1/forfaits'), {
      AWS_ACCESS_KEY_ID: '',
      AWS_SECRET_ACCESS_KEY: '',
      AWS_SESSION_TOKEN: '',
    });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'ERR_INTERNAL' } });
    expect(res.logs).toMatch(/Unable to find environment variable credentials/);
  });

  it('verifies tokens and answers a JSON 401 without one (GET /auth/session)', async () => {
    const res = await invoke('auth/session', event('GET', '/api/v1/auth/session'));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'ERR_UNAUTHENTICATED' } });
  });

  it("carries an edge's token check: the edge's own token is answered, another is refused (POST /edge/radius/authorize)", async () => {
    const { token } = await registerEdge({
      name: 'Bundle edge',
      reseller_ids: [randomUUID()],
      addresses: ['192.0.2.40'],
      nowIso: new Date().toISOString(),
    });
    const login = (bearer: string) =>
      event('POST', '/api/v1/edge/radius/authorize', {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify({
          'User-Name': { type: 'string', value: ['ABCDEFGHJK'] },
          'NAS-Identifier': { type: 'string', value: ['access_nowhere'] },
        }),
      });
    // Its token passes: the login itself is refused (no such router), as the front would refuse it.
    const answered = await invoke('edge/edge-radius-authorize', login(token));
    expect(answered.statusCode).toBe(401);
    expect(answered.body).toContain('Reply-Message');
    const forged = await invoke('edge/edge-radius-authorize', login(`${token.slice(0, -1)}x`));
    expect(forged.statusCode).toBe(502);
    expect(JSON.parse(forged.body)).toMatchObject({ error: { code: 'ERR_RADIUS_CREDENTIALS' } });
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

  it('texts the code through SNS with the bundled client (POST /auth/otp/request)', async () => {
    // A local SNS speaking its Query protocol: a form-encoded Publish in, the XML answer out.
    const published: URLSearchParams[] = [];
    const sns = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        published.push(new URLSearchParams(body));
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end(
          '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult>' +
            '<MessageId>m-1</MessageId></PublishResult><ResponseMetadata><RequestId>r-1</RequestId>' +
            '</ResponseMetadata></PublishResponse>',
        );
      });
    });
    await new Promise<void>((ok) => sns.listen(0, '127.0.0.1', ok));
    try {
      const res = await invoke(
        'auth/otp-request',
        event('POST', '/api/v1/auth/otp/request', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ msisdn: '+2250700000123' }),
        }),
        {
          AWS_ENDPOINT_URL_SNS: `http://127.0.0.1:${(sns.address() as AddressInfo).port}`,
          SMS_MODE: 'sns',
          OTP_PEPPER: 'bundle-test-pepper',
        },
      );
      expect(res.statusCode).toBe(200);
      expect(published).toHaveLength(1);
      const publish = published[0] as URLSearchParams;
      expect(publish.get('Action')).toBe('Publish');
      expect(publish.get('PhoneNumber')).toBe('+2250700000123');
      expect(publish.get('Message')).toMatch(/\b\d{6}\b/);
    } finally {
      sns.close();
    }
  });

  it('reads its signing key through the secrets extension (GET /auth/session with a token)', async () => {
    // A local stand-in for the Parameters and Secrets extension, speaking its wire format.
    const secret = process.env.JWT_SECRET as string;
    const asked: { url?: string; token?: string | string[] }[] = [];
    const extension = createServer((req, res) => {
      asked.push({ url: req.url, token: req.headers['x-aws-parameters-secrets-token'] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ARN: 'arn:aws:secretsmanager:local:1:secret:jwt',
          Name: 'jwt',
          SecretString: secret,
        }),
      );
    });
    await new Promise<void>((ok) => extension.listen(0, '127.0.0.1', ok));
    try {
      const { token } = await signSession({ sub: randomUUID(), role: 'subscriber', ref: 'SUB-1' });
      const res = await invoke(
        'auth/session',
        event('GET', '/api/v1/auth/session', { headers: { authorization: `Bearer ${token}` } }),
        {
          JWT_SECRET: '',
          JWT_SECRET_ARN: 'arn:aws:secretsmanager:local:1:secret:jwt',
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String((extension.address() as AddressInfo).port),
        },
      );
      expect(res.statusCode).toBe(200);
      expect(asked).toEqual([
        {
          url: `/secretsmanager/get?secretId=${encodeURIComponent('arn:aws:secretsmanager:local:1:secret:jwt')}`,
          token: 'local-session',
        },
      ]);
    } finally {
      extension.close();
    }
  });

  it("renews the front's certificate through Secrets Manager and ECS with the bundled clients (the rotation)", async () => {
    // One local endpoint speaking both services' JSON 1.1 protocol: the secret has no value
    // yet (ResourceNotFoundException), and the service does not exist yet (the first deploy).
    const calls: { target: string; body: Record<string, unknown>; authorization: string; token: string }[] =
      [];
    const aws = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const target = String(req.headers['x-amz-target']);
        calls.push({
          target,
          body: JSON.parse(body) as Record<string, unknown>,
          authorization: String(req.headers.authorization),
          token: String(req.headers['x-amz-security-token']),
        });
        const reply = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
        if (target === 'secretsmanager.GetSecretValue')
          return reply(400, { __type: 'ResourceNotFoundException', message: 'no value yet' });
        if (target === 'secretsmanager.PutSecretValue') return reply(200, { ARN: 'arn:front-tls' });
        if (target === 'AmazonEC2ContainerServiceV20141113.DescribeServices')
          return reply(200, { services: [], failures: [{ arn: 'radius-front', reason: 'MISSING' }] });
        reply(400, { __type: 'UnknownOperationException' });
      });
    });
    await new Promise<void>((ok) => aws.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;
      const answer = (await invoke(
        'routers/front-tls-rotation',
        { source: 'aws.events', 'detail-type': 'Scheduled Event' },
        {
          AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
          AWS_ENDPOINT_URL_ECS: url,
          ROUTER_CA_KEY: 'bundle-test-router-ca-key-0123456789abcdef',
          FRONT_TLS_SECRET_ARN: 'arn:aws:secretsmanager:local:1:secret:front-tls',
          FRONT_CLUSTER: 'hotspot-local-radius',
          FRONT_SERVICE: 'radius-front',
        },
      )) as unknown as Record<string, unknown>;
      expect(answer).toMatchObject({ reason: 'missing', renewed: true, rolled: false });
      // The service does not exist yet (the first deploy): nothing to roll.
      expect(calls.map((c) => c.target)).toEqual([
        'secretsmanager.GetSecretValue',
        'secretsmanager.PutSecretValue',
        'AmazonEC2ContainerServiceV20141113.DescribeServices',
      ]);
      expect(JSON.parse(String(calls[1]?.body.SecretString))).toHaveProperty('cert_pem');
      expect(calls[2]?.body).toEqual({ cluster: 'hotspot-local-radius', services: ['radius-front'] });
      // Signed with the environment's credentials, for each service.
      expect(calls[0]?.authorization).toMatch(/Credential=local\/\d{8}\/local\/secretsmanager\/aws4_request/);
      expect(calls[2]?.authorization).toMatch(/Credential=local\/\d{8}\/local\/ecs\/aws4_request/);
      expect(calls.every((c) => c.token === 'local-session')).toBe(true);
    } finally {
      aws.close();
    }
  });

  it("asks the router keys function through Lambda's Invoke with the bundled client, holding no key itself (POST /edge/radius/client)", async () => {
    // An edge's reseller with a UDP router at an address, and the edge's token.
    const resellerId = randomUUID();
    const nasId = await hotspotOf(resellerId, 'access_bundle');
    const { router, credentials } = await register({
      reseller_id: resellerId,
      name: 'R',
      nas_ids: [nasId],
      transport: 'udp',
      source_ip: '198.51.100.77',
    });
    const { token } = await registerEdge({
      name: 'Bundle edge',
      reseller_ids: [resellerId],
      addresses: ['192.0.2.41'],
      nowIso: new Date().toISOString(),
    });
    // Lambda's Invoke API on loopback: each call answered by the keys function's own handler.
    const invoked: { path?: string; authorization?: string; call: Record<string, unknown> }[] = [];
    const lambdaApi = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', async () => {
        const call = JSON.parse(body) as Record<string, unknown>;
        invoked.push({ path: req.url, authorization: String(req.headers.authorization), call });
        const answer = await keysFunction(call);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((ok) => lambdaApi.listen(0, '127.0.0.1', ok));
    try {
      const res = await invoke(
        'edge/edge-radius-client',
        event('POST', '/api/v1/edge/radius/client', {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ 'Hotspot-NAS-IP': { type: 'string', value: ['198.51.100.77'] } }),
        }),
        {
          ROUTER_KEYS_FUNCTION: 'Hotspot-test-RouterKeys',
          AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`,
          // The public function has neither key: whatever opens the secret is the keys function.
          ROUTER_SEAL_KEY: '',
          ROUTER_CA_KEY: '',
        },
      );
      expect(res.statusCode).toBe(200);
      const client = JSON.parse(res.body) as Record<string, { value: string }>;
      expect(client['control:FreeRADIUS-Client-Secret']?.value).toBe(
        (credentials as { secret: string }).secret,
      );
      expect(client['control:FreeRADIUS-Client-Shortname']?.value).toBe(router.router_id);
      expect(invoked).toHaveLength(1);
      expect(invoked[0]?.path).toBe('/2015-03-31/functions/Hotspot-test-RouterKeys/invocations');
      expect(invoked[0]?.call).toEqual({
        op: 'edge-client',
        authorization: `Bearer ${token}`,
        source_ip: '198.51.100.77',
      });
      expect(invoked[0]?.authorization).toMatch(/Credential=local\/\d{8}\/local\/lambda\/aws4_request/);
    } finally {
      lambdaApi.close();
    }
  });

  it('seals a secret in the router keys bundle, which opens with the sealing key (the keys function)', async () => {
    const answer = (await invoke('routers/router-keys', {
      op: 'seal',
      router_id: 'rtr_bundle000001',
      secret: 'bundle-secret-0123456789abcdef',
    })) as unknown as { secret_box: string };
    expect(open(process.env.ROUTER_SEAL_KEY as string, 'rtr_bundle000001', answer.secret_box)).toBe(
      'bundle-secret-0123456789abcdef',
    );
  });

  it('counts a new session from a DynamoDB stream record (the SessionCounts consumer)', async () => {
    const session: RadiusSession = {
      id: randomUUID(),
      code: 'BUNDLE1',
      nas_id: 'access_bundle',
      reseller_id: randomUUID(),
      device: '02:00:00:00:00:01',
      status: 'open',
      total_bytes: 0,
      session_time_s: 0,
      started_at: new Date().toISOString(),
      last_report_at: new Date().toISOString(),
      uncounted: true,
    };
    await Session.put(session);
    const record = {
      eventName: 'INSERT',
      dynamodb: {
        SequenceNumber: '1',
        NewImage: marshall(Session.item(session), { removeUndefinedValues: true }),
      },
    };
    const answer = await invoke('radius/session-counts', { Records: [record] });
    expect(answer).toMatchObject({ batchItemFailures: [] });
    expect((await countersOf(scopeOf.reseller(session.reseller_id))).open).toBe(1);
    expect(await getSession(session.id)).not.toHaveProperty('uncounted');
  });
});
