import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeServicesCommand, ECSClient, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetSecrets } from '../../functions/core/secrets.js';
import { issueServerCertificate } from '../../functions/routers/ca.mjs';
import { oneAtATime, type RotationTargets, rotateFrontTls } from '../../functions/routers/front-tls.js';
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

/** What the secret holds (JSON), each PEM under the key the front's task definition reads. */
interface FrontTlsFiles {
  ca_pem: string;
  cert_pem: string;
  key_pem: string;
  not_after: string;
}

/** The certificate is renewed once less than this share of its lifetime is left (docs/radius.md). */
const RENEW_WHEN_LEFT = 1 / 3;

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

/** Why a rotation at `nowMs` renews the secret's `current` value, or `fresh` when it leaves it. */
const renewalReason = async (current: string | undefined, nowMs: number) =>
  (await rotateFrontTls(memoryTargets(current).targets, { caKey: CA_KEY, name: 'front', nowMs })).reason;

describe('when the front certificate is renewed', () => {
  it('renews once less than a third of its lifetime is left, and not a second before', async () => {
    // Prepare
    const cert = await issueServerCertificate(CA_KEY, 'front', T0, 3);
    const current = JSON.stringify({ cert_pem: cert.certPem, key_pem: cert.keyPem });
    const { from, to } = validity(cert.certPem);
    const boundary = to - (to - from) * RENEW_WHEN_LEFT;

    // Act + Assess
    expect(await renewalReason(current, T0)).toBe('fresh');
    expect(await renewalReason(current, boundary - 1000)).toBe('fresh');
    expect(await renewalReason(current, boundary)).toBe('fresh');
    expect(await renewalReason(current, boundary + 1000)).toBe('expiring');
    expect(await renewalReason(current, to + DAY)).toBe('expiring');
  });

  it('renews a placeholder, a broken value and a certificate another CA signed', async () => {
    // Prepare
    const stranger = await issueServerCertificate(OTHER_CA_KEY, 'front', T0);

    // Act + Assess
    expect(await renewalReason(undefined, T0)).toBe('missing');
    expect(await renewalReason('generated-placeholder-48-characters', T0)).toBe('missing');
    expect(await renewalReason(JSON.stringify({ cert_pem: 'not a certificate', key_pem: 'x' }), T0)).toBe(
      'missing',
    );
    expect(
      await renewalReason(JSON.stringify({ cert_pem: stranger.certPem, key_pem: stranger.keyPem }), T0),
    ).toBe('other-ca');
  });

  it('states the lifetimes: the server certificate 90 days, renewed with 30 left', async () => {
    // A certificate of the default lifetime, as the rotation issues it: renewed 30 days before its end.
    const { state, targets } = memoryTargets();
    await rotateFrontTls(targets, { caKey: CA_KEY, name: 'front', nowMs: T0 });
    const current = state.value as string;
    const { from, to } = validity((JSON.parse(current) as FrontTlsFiles).cert_pem);
    // (Valid from a few minutes before its issue, for clocks a little behind.)
    expect(Math.round((to - from) / DAY)).toBe(90);
    expect(await renewalReason(current, to - 30 * DAY - 3_600_000)).toBe('fresh');
    expect(await renewalReason(current, to - 30 * DAY + 3_600_000)).toBe('expiring');
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

// ---- the handler, with the SDK's Secrets Manager and ECS clients mocked ----

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:FrontTls-abc123';
const secretsManager = mockClient(SecretsManagerClient);
const ecs = mockClient(ECSClient);
/** The secret's value as the mock holds it: undefined until a PutSecretValue (ResourceNotFound). */
let stored: string | undefined;

/**
 * Secrets Manager and ECS as the rotation meets them; `serviceExists` false before the first
 * deploy's service (ECS then answers DescribeServices with a failure, not an error); the service
 * runs `desired` tasks.
 */
function mockAws({ serviceExists, desired = 2 }: { serviceExists: boolean; desired?: number }) {
  secretsManager.reset();
  ecs.reset();
  secretsManager.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).callsFake(async () => {
    if (stored === undefined)
      throw new ResourceNotFoundException({ message: "Secrets Manager can't find the value", $metadata: {} });
    return { ARN: SECRET_ARN, SecretString: stored };
  });
  secretsManager.on(PutSecretValueCommand, { SecretId: SECRET_ARN }).callsFake(async (input) => {
    stored = (input as { SecretString: string }).SecretString;
    return { ARN: SECRET_ARN };
  });
  ecs.on(DescribeServicesCommand).resolves(
    serviceExists
      ? {
          services: [{ serviceName: 'radius-front', status: 'ACTIVE', desiredCount: desired }],
          failures: [],
        }
      : { services: [], failures: [{ reason: 'MISSING' }] },
  );
  ecs.on(UpdateServiceCommand).resolves({ service: {} });
}

/** Every call the handler made to either client, in the order made (sinon knows which call came first), as command name and input. */
const sent = () =>
  [...secretsManager.calls(), ...ecs.calls()]
    .sort((a, b) => (a.calledBefore(b) ? -1 : 1))
    .map((call) => ({ command: call.args[0].constructor.name, input: call.args[0].input }));

/** CloudFormation's side of a custom resource: the answers PUT to the presigned ResponseURL. */
let cloudFormation: Server;
let answers: { url: string; body: Record<string, string> }[] = [];
const responseUrl = (query: string) =>
  `http://127.0.0.1:${(cloudFormation.address() as AddressInfo).port}/cfn-response?${query}`;

const saved = { ...process.env };
beforeAll(async () => {
  cloudFormation = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      if (req.method === 'PUT') answers.push({ url: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => cloudFormation.listen(0, '127.0.0.1', () => done()));
  Object.assign(process.env, {
    ROUTER_CA_KEY: CA_KEY,
    FRONT_TLS_SECRET_ARN: SECRET_ARN,
    FRONT_CLUSTER: 'hotspot-ci-radius',
    FRONT_SERVICE: 'radius-front',
    FRONT_TLS_NAME: 'radius.ci.example.com',
  });
  resetSecrets();
});

beforeEach(() => {
  answers = [];
});

afterAll(async () => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  resetSecrets();
  secretsManager.restore();
  ecs.restore();
  await new Promise((done) => cloudFormation.close(done));
});

describe('a rolling replacement', () => {
  it('starts one task more than the service runs, whatever it runs, and stops none before', () => {
    for (const desired of [1, 2, 3, 4, 5, 6, 10]) {
      const { minimumHealthyPercent, maximumPercent } = oneAtATime(desired);
      // ECS runs at most floor(desired x maximumPercent / 100) tasks during a deployment.
      expect(Math.floor((desired * maximumPercent) / 100), `${desired} tasks`).toBe(desired + 1);
      expect(minimumHealthyPercent).toBe(100);
    }
  });
});

describe('the rotation function', () => {
  it('reads the secret, writes a new certificate and forces a new deployment of the service', async () => {
    // Prepare: the secret has no value yet.
    stored = undefined;
    mockAws({ serviceExists: true });

    // Act
    const result = await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' });

    // Assess
    expect(result).toMatchObject({ reason: 'missing', renewed: true, rolled: true });
    expect(sent()).toEqual([
      { command: 'GetSecretValueCommand', input: { SecretId: SECRET_ARN } },
      { command: 'PutSecretValueCommand', input: { SecretId: SECRET_ARN, SecretString: stored } },
      {
        command: 'DescribeServicesCommand',
        input: { cluster: 'hotspot-ci-radius', services: ['radius-front'] },
      },
      {
        // One task at a time: at most one more than the 2 it runs, none stopped before its
        // replacement is healthy; the circuit breaker as the stack deploys it.
        command: 'UpdateServiceCommand',
        input: {
          cluster: 'hotspot-ci-radius',
          service: 'radius-front',
          forceNewDeployment: true,
          deploymentConfiguration: {
            minimumHealthyPercent: 100,
            maximumPercent: 150,
            deploymentCircuitBreaker: { enable: true, rollback: true },
          },
        },
      },
    ]);
    const files = JSON.parse(String(stored)) as FrontTlsFiles;
    expect(new X509Certificate(files.cert_pem).subject).toBe('CN=radius.ci.example.com');
    expect(new X509Certificate(files.cert_pem).verify(new X509Certificate(files.ca_pem).publicKey)).toBe(
      true,
    );
  });

  it('leaves a fresh certificate and the service alone', async () => {
    // Prepare: the secret holds the certificate the previous run issued.
    expect(stored).toBeDefined();
    mockAws({ serviceExists: true });

    // Act
    const result = await handler({ source: 'aws.events' });

    // Assess
    expect(result).toMatchObject({ reason: 'fresh', renewed: false, rolled: false });
    expect(sent().map((c) => c.command)).toEqual(['GetSecretValueCommand']);
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(ecs.commandCalls(UpdateServiceCommand)).toHaveLength(0);
  });

  it('lets any other failure of Secrets Manager reach the caller, and writes nothing', async () => {
    // Prepare
    mockAws({ serviceExists: true });
    secretsManager.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException'));

    // Act + Assess: the scheduled run fails (its alarm pages) rather than overwriting the secret.
    await expect(handler({ source: 'aws.events' })).rejects.toThrow('AccessDeniedException');
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(ecs.commandCalls(UpdateServiceCommand)).toHaveLength(0);
  });

  it('at a first deploy, fills the secret before the service exists and answers CloudFormation', async () => {
    // Prepare: the stack's generated placeholder, and no service yet (ECS: ServiceNotFound).
    stored = 'a placeholder the stack generated';
    mockAws({ serviceExists: false });

    // Act
    const result = await handler({
      RequestType: 'Create',
      ResponseURL: responseUrl('signed=1'),
      StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/hotspot-ci/1',
      RequestId: 'req-1',
      LogicalResourceId: 'FrontTlsIssued',
    });

    // Assess
    expect(result).toMatchObject({ reason: 'missing', renewed: true, rolled: false });
    expect(ecs.commandCalls(DescribeServicesCommand)).toHaveLength(1);
    expect(ecs.commandCalls(UpdateServiceCommand)).toHaveLength(0);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.url).toBe('/cfn-response?signed=1');
    expect(answers[0]?.body).toMatchObject({
      Status: 'SUCCESS',
      RequestId: 'req-1',
      LogicalResourceId: 'FrontTlsIssued',
      PhysicalResourceId: 'front-tls',
    });
    expect(JSON.parse(stored as string)).toHaveProperty('cert_pem');
  });

  it('answers CloudFormation FAILED, with the reason, when the rotation cannot run (a deploy never waits an hour)', async () => {
    // Prepare: the CA key unreadable.
    mockAws({ serviceExists: true });
    process.env.ROUTER_CA_KEY = '';
    resetSecrets();

    try {
      // Act
      const result = await handler({
        RequestType: 'Update',
        ResponseURL: responseUrl('signed=2'),
        StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/hotspot-ci/1',
        RequestId: 'req-2',
        LogicalResourceId: 'FrontTlsIssued',
        PhysicalResourceId: 'front-tls',
      });

      // Assess
      expect(result).toBeUndefined();
      expect(answers).toHaveLength(1);
      expect(answers[0]?.body).toMatchObject({
        Status: 'FAILED',
        RequestId: 'req-2',
        PhysicalResourceId: 'front-tls',
      });
      expect(answers[0]?.body.Reason).toContain('ROUTER_CA_KEY');
      expect(sent()).toEqual([]);
    } finally {
      process.env.ROUTER_CA_KEY = CA_KEY;
      resetSecrets();
    }
  });

  it('answers CloudFormation FAILED when Secrets Manager refuses the write', async () => {
    // Prepare
    stored = undefined;
    mockAws({ serviceExists: true });
    secretsManager.on(PutSecretValueCommand).rejects(new Error('AccessDeniedException: not allowed'));

    // Act
    const result = await handler({
      RequestType: 'Update',
      ResponseURL: responseUrl('signed=3'),
      StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/hotspot-ci/1',
      RequestId: 'req-3',
      LogicalResourceId: 'FrontTlsIssued',
      PhysicalResourceId: 'front-tls',
    });

    // Assess: nothing rolled, and CloudFormation told why.
    expect(result).toBeUndefined();
    expect(ecs.commandCalls(UpdateServiceCommand)).toHaveLength(0);
    expect(answers[0]?.body).toMatchObject({ Status: 'FAILED', RequestId: 'req-3' });
    expect(answers[0]?.body.Reason).toContain('AccessDeniedException');
  });

  it('answers a Delete with SUCCESS and calls nothing', async () => {
    // Prepare
    mockAws({ serviceExists: true });

    // Act
    const result = await handler({
      RequestType: 'Delete',
      ResponseURL: responseUrl('signed=4'),
      StackId: 'arn:aws:cloudformation:eu-west-1:111122223333:stack/hotspot-ci/1',
      RequestId: 'req-4',
      LogicalResourceId: 'FrontTlsIssued',
      PhysicalResourceId: 'front-tls',
    });

    // Assess
    expect(result).toBeUndefined();
    expect(answers.map((a) => a.body.Status)).toEqual(['SUCCESS']);
    expect(sent()).toEqual([]);
  });
});
