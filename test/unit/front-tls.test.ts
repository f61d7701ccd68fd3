import { createHash, createHmac, X509Certificate } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetSecrets } from '../../functions/core/secrets.js';
import { caCertificatePem, issueServerCertificate, SERVER_CERT_DAYS } from '../../functions/routers/ca.mjs';
import {
  type FrontTlsFiles,
  RENEW_WHEN_LEFT,
  type RotationTargets,
  renewalReason,
  rotateFrontTls,
} from '../../functions/routers/front-tls.js';
import { handler } from '../../functions/routers/front-tls-rotation.js';

/**
 * The RADIUS front's certificate renews itself (functions/routers/front-tls.ts): decided on what
 * is left of its lifetime, written to the secret the tasks read, followed by a rolling deployment.
 * Lifetimes here are days or hours long and the clock is given: no waiting.
 */

const CA_KEY = 'front-tls-test-ca-key-0123456789abcdefghij';
const OTHER_CA_KEY = 'front-tls-test-another-ca-key-0123456789ab';
const DAY = 86_400_000;
/** A whole second: X.509 times have no milliseconds. */
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

const validity = (certPem: string) => {
  const cert = new X509Certificate(certPem);
  return { from: Date.parse(cert.validFrom), to: Date.parse(cert.validTo) };
};

/** A secret and a service in memory: what the rotation wrote and how many rollouts it asked for. */
function memoryTargets(initial?: string) {
  const state = { value: initial, writes: [] as string[], rolls: 0 };
  const targets: RotationTargets = {
    read: async () => state.value,
    write: async (value) => {
      state.value = value;
      state.writes.push(value);
    },
    roll: async () => {
      state.rolls += 1;
      return true;
    },
  };
  return { state, targets };
}

describe('when the front certificate is renewed', () => {
  it('renews once less than a third of its lifetime is left, and not a second before', async () => {
    // Prepare
    const cert = await issueServerCertificate(CA_KEY, 'front', T0, 3);
    const current = JSON.stringify({ cert_pem: cert.certPem, key_pem: cert.keyPem });
    const ca = await caCertificatePem(CA_KEY);
    const { from, to } = validity(cert.certPem);
    const boundary = to - (to - from) * RENEW_WHEN_LEFT;

    // Act + Assess
    expect(renewalReason(current, ca, T0)).toBe('fresh');
    expect(renewalReason(current, ca, boundary - 1000)).toBe('fresh');
    expect(renewalReason(current, ca, boundary)).toBe('fresh');
    expect(renewalReason(current, ca, boundary + 1000)).toBe('expiring');
    expect(renewalReason(current, ca, to + DAY)).toBe('expiring');
  });

  it('renews a placeholder, a broken value and a certificate another CA signed', async () => {
    // Prepare
    const ca = await caCertificatePem(CA_KEY);
    const stranger = await issueServerCertificate(OTHER_CA_KEY, 'front', T0);

    // Act + Assess
    expect(renewalReason(undefined, ca, T0)).toBe('missing');
    expect(renewalReason('generated-placeholder-48-characters', ca, T0)).toBe('missing');
    expect(renewalReason(JSON.stringify({ cert_pem: 'not a certificate', key_pem: 'x' }), ca, T0)).toBe(
      'missing',
    );
    expect(
      renewalReason(JSON.stringify({ cert_pem: stranger.certPem, key_pem: stranger.keyPem }), ca, T0),
    ).toBe('other-ca');
  });

  it('states the lifetimes: the server certificate 90 days, renewed with 30 left', () => {
    expect(SERVER_CERT_DAYS).toBe(90);
    expect(SERVER_CERT_DAYS * RENEW_WHEN_LEFT).toBe(30);
  });
});

describe('a rotation with a short lifetime', () => {
  it('issues into the secret and rolls the tasks, leaves a fresh one alone, and renews it before it expires', async () => {
    // Prepare: a 6-hour certificate, a rotation every hour.
    const { state, targets } = memoryTargets('placeholder');
    const lifetimeDays = 0.25;
    const runs: { at: number; renewed: boolean; rolled: boolean }[] = [];

    // Act
    for (let hour = 0; hour <= 12; hour++) {
      const at = T0 + hour * 3_600_000;
      const result = await rotateFrontTls(targets, {
        caKey: CA_KEY,
        name: 'front',
        nowMs: at,
        days: lifetimeDays,
      });
      runs.push({ at, renewed: result.renewed, rolled: result.rolled });
      // Assess: whatever the hour, the certificate in the secret is valid then, signed by the CA.
      const files = JSON.parse(state.value as string) as FrontTlsFiles;
      const { from, to } = validity(files.cert_pem);
      expect(from).toBeLessThanOrEqual(at);
      expect(to - at).toBeGreaterThanOrEqual((to - from) * RENEW_WHEN_LEFT - 3_600_000);
      expect(new X509Certificate(files.cert_pem).verify(new X509Certificate(files.ca_pem).publicKey)).toBe(
        true,
      );
      expect(files.key_pem).toContain('PRIVATE KEY');
    }

    // Assess: renewed at the first run, then once a third (about 2 h) was left: every 4 h.
    expect(runs.filter((r) => r.renewed).map((r) => (r.at - T0) / 3_600_000)).toEqual([0, 4, 8, 12]);
    expect(state.rolls).toBe(4);
    expect(runs.every((r) => r.renewed === r.rolled)).toBe(true);
    // Each renewal has a key of its own.
    expect(new Set(state.writes.map((w) => (JSON.parse(w) as FrontTlsFiles).key_pem)).size).toBe(4);
  });
});

// ---- the handler against AWS's JSON APIs, served locally ----

interface Seen {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** Whether the request carries the SigV4 signature the specification gives for these credentials. */
function signedCorrectly(seen: Seen, secret: string, region: string, service: string): boolean {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(seen.headers.authorization),
    );
  if (!auth) return false;
  const [, day, scopeRegion, scopeService, signedHeaders, signature] = auth as unknown as string[];
  if (scopeRegion !== region || scopeService !== service) return false;
  const names = (signedHeaders as string).split(';');
  const canonicalHeaders = names.map((n) => `${n}:${String(seen.headers[n]).trim()}\n`).join('');
  const canonical = ['POST', '/', '', canonicalHeaders, signedHeaders, hex(seen.body)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', String(seen.headers['x-amz-date']), scope, hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day as string), region), service), 'aws4_request');
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex') === signature;
}

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:FrontTls-abc123';
let server: Server;
let seen: Seen[] = [];
let stored: string | undefined;
let serviceExists = true;

const saved = { ...process.env };
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      const target = String(req.headers['x-amz-target'] ?? '');
      const reply = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(value));
      if (req.method === 'PUT') return void res.writeHead(200).end();
      if (target === 'secretsmanager.GetSecretValue')
        return void (stored === undefined
          ? reply(400, { __type: 'ResourceNotFoundException', message: 'no value' })
          : reply(200, { ARN: SECRET_ARN, SecretString: stored }));
      if (target === 'secretsmanager.PutSecretValue') {
        stored = (JSON.parse(body) as { SecretString: string }).SecretString;
        return void reply(200, { ARN: SECRET_ARN });
      }
      if (target === 'AmazonEC2ContainerServiceV20141113.UpdateService')
        return void (serviceExists
          ? reply(200, { service: {} })
          : reply(400, {
              __type: 'com.amazonaws.ecs#ServiceNotFoundException',
              message: 'Service not found.',
            }));
      reply(400, { __type: 'UnknownOperationException' });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDROTATIONTEST',
    AWS_SECRET_ACCESS_KEY: 'rotation-test-secret-key',
    AWS_SESSION_TOKEN: 'rotation-test-session-token',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
    AWS_ENDPOINT_URL_ECS: url,
    ROUTER_CA_KEY: CA_KEY,
    FRONT_TLS_SECRET_ARN: SECRET_ARN,
    FRONT_CLUSTER: 'hotspot-ci-radius',
    FRONT_SERVICE: 'radius-front',
    FRONT_TLS_NAME: 'radius.ci.example.com',
  });
  resetSecrets();
});

afterEach(() => {
  seen = [];
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  resetSecrets();
  await new Promise((done) => server.close(done));
});

const calls = () =>
  seen
    .filter((s) => s.method === 'POST')
    .map((s) => ({ target: s.headers['x-amz-target'], body: JSON.parse(s.body) as Record<string, unknown> }));

describe('the rotation function', () => {
  it('reads the secret, writes a new certificate and forces a new deployment of the service, each call signed', async () => {
    // Prepare
    stored = undefined;
    serviceExists = true;

    // Act
    const result = await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' });

    // Assess
    expect(result).toMatchObject({ reason: 'missing', renewed: true, rolled: true });
    expect(calls().map((c) => c.target)).toEqual([
      'secretsmanager.GetSecretValue',
      'secretsmanager.PutSecretValue',
      'AmazonEC2ContainerServiceV20141113.UpdateService',
    ]);
    expect(calls()[0]?.body).toEqual({ SecretId: SECRET_ARN });
    expect(calls()[1]?.body).toEqual({ SecretId: SECRET_ARN, SecretString: stored });
    expect(calls()[2]?.body).toEqual({
      cluster: 'hotspot-ci-radius',
      service: 'radius-front',
      forceNewDeployment: true,
    });
    for (const s of seen) {
      expect(s.headers['x-amz-security-token']).toBe('rotation-test-session-token');
      expect(s.headers['content-type']).toBe('application/x-amz-json-1.1');
    }
    expect(signedCorrectly(seen[0] as Seen, 'rotation-test-secret-key', 'eu-west-1', 'secretsmanager')).toBe(
      true,
    );
    expect(signedCorrectly(seen[2] as Seen, 'rotation-test-secret-key', 'eu-west-1', 'ecs')).toBe(true);
    expect(signedCorrectly(seen[2] as Seen, 'another-secret-key', 'eu-west-1', 'ecs')).toBe(false);
    const files = JSON.parse(String(stored)) as FrontTlsFiles;
    expect(new X509Certificate(files.cert_pem).subject).toBe('CN=radius.ci.example.com');
  });

  it('leaves a fresh certificate and the service alone', async () => {
    // Act
    const result = await handler({ source: 'aws.events' });

    // Assess
    expect(result).toMatchObject({ reason: 'fresh', renewed: false, rolled: false });
    expect(calls().map((c) => c.target)).toEqual(['secretsmanager.GetSecretValue']);
  });

  it('at a first deploy, fills the secret before the service exists and answers CloudFormation', async () => {
    // Prepare
    stored = 'a placeholder the stack generated';
    serviceExists = false;
    const responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cfn-response?signed=1`;

    // Act
    const result = await handler({
      RequestType: 'Create',
      ResponseURL: responseUrl,
      StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/hotspot-ci/1',
      RequestId: 'req-1',
      LogicalResourceId: 'FrontTlsIssued',
    });

    // Assess
    expect(result).toMatchObject({ reason: 'missing', renewed: true, rolled: false });
    const answer = seen.find((s) => s.method === 'PUT');
    expect(answer?.url).toBe('/cfn-response?signed=1');
    expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({
      Status: 'SUCCESS',
      RequestId: 'req-1',
      LogicalResourceId: 'FrontTlsIssued',
      PhysicalResourceId: 'front-tls',
    });
    expect(JSON.parse(stored as string)).toHaveProperty('cert_pem');
  });

  it('answers CloudFormation FAILED, with the reason, when the rotation cannot run (a deploy never waits an hour)', async () => {
    // Prepare: the CA key unreadable.
    process.env.ROUTER_CA_KEY = '';
    resetSecrets();
    const responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cfn-response?signed=2`;

    try {
      // Act
      const result = await handler({
        RequestType: 'Update',
        ResponseURL: responseUrl,
        StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/hotspot-ci/1',
        RequestId: 'req-2',
        LogicalResourceId: 'FrontTlsIssued',
        PhysicalResourceId: 'front-tls',
      });

      // Assess
      expect(result).toBeUndefined();
      const answer = JSON.parse(seen.find((s) => s.method === 'PUT')?.body ?? '{}') as Record<string, string>;
      expect(answer).toMatchObject({ Status: 'FAILED', RequestId: 'req-2', PhysicalResourceId: 'front-tls' });
      expect(answer.Reason).toContain('ROUTER_CA_KEY');
      expect(calls()).toEqual([]);
    } finally {
      process.env.ROUTER_CA_KEY = CA_KEY;
      resetSecrets();
    }
  });
});
