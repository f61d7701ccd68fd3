import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/core/config.js';
import { toAppError } from '../../functions/core/errors.js';
import { resetSns } from '../../functions/core/lazy-sns.js';
import { getSecret, resetSecrets } from '../../functions/core/secrets.js';
import { sendSms } from '../../functions/core/sms.js';

/** How long a read waits for the secrets extension (functions/core/secrets.ts). */
const EXTENSION_TIMEOUT_MS = 2000;

describe('SMS through SNS', () => {
  const sns = mockClient(SNSClient);
  beforeEach(() => {
    sns.reset();
    resetSns();
    process.env.SMS_MODE = 'sns';
    process.env.TABLE_NAME = 'unused';
    resetConfig();
  });
  afterEach(() => {
    process.env.SMS_MODE = 'outbox';
    resetConfig();
  });

  it('publishes a Transactional SMS to the phone number', async () => {
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    await sendSms('+2250712345678', 'Votre code est 123456');
    const calls = sns.commandCalls(PublishCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toMatchObject({
      PhoneNumber: '+2250712345678',
      Message: 'Votre code est 123456',
      MessageAttributes: { 'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } },
    });
  });

  it('lets an SNS failure reach the caller', async () => {
    sns.on(PublishCommand).rejects(new Error('throttled'));
    await expect(sendSms('+2250712345678', 'x')).rejects.toThrow('throttled');
  });
});

/**
 * A stand-in for the Parameters and Secrets extension, speaking its wire format:
 * `GET /secretsmanager/get?secretId=<id>` with the session token in
 * `X-Aws-Parameters-Secrets-Token` (400 without it, 401 with another), the GetSecretValue JSON
 * of a known secret, 400 (ResourceNotFoundException) for any other. `next` scripts the answer
 * to the next request instead (a failure, a hang).
 */
function fakeExtension(token: string, secrets: Record<string, Record<string, unknown>>) {
  const requests: { url: string; token: string | undefined }[] = [];
  const scripted: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const given = req.headers['x-aws-parameters-secrets-token'];
    requests.push({ url: req.url ?? '', token: typeof given === 'string' ? given : undefined });
    const script = scripted.shift();
    if (script) return script(req, res);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (given === undefined) return json(400, { message: 'missing X-Aws-Parameters-Secrets-Token' });
    if (given !== token) return json(401, { message: 'invalid token' });
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' || url.pathname !== '/secretsmanager/get') return json(404, {});
    const secret = secrets[url.searchParams.get('secretId') ?? ''];
    if (!secret) {
      return json(400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
    }
    json(200, secret);
  });
  return {
    requests,
    /** The answer to the next request, instead of the extension's. */
    next: (script: (req: IncomingMessage, res: ServerResponse) => void) => scripted.push(script),
    start: () =>
      new Promise<number>((ok) =>
        server.listen(0, '127.0.0.1', () => ok((server.address() as AddressInfo).port)),
      ),
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/** Everything an error would show in a log line or a response: its name, message and causes. */
function shown(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as { name?: unknown; message?: unknown; cause?: unknown } | undefined; e; ) {
    parts.push(String(e.name), String(e.message));
    e = e.cause as typeof e;
  }
  return `${parts.join(' ')} ${JSON.stringify(toAppError(error))}`;
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe('secrets through the Parameters and Secrets extension', () => {
  const TOKEN = 'session-token-IQoJb3JpZ2luX2VjEXAMPLE';
  // A name with characters a query string must escape (`/`, `+`, `:`).
  const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:hotspot/otp+pepper-AbCdEf';
  const VALUE = 'pepper-value-7f3a9c2e51d84b06';
  const extension = fakeExtension(TOKEN, {
    [ARN]: {
      ARN,
      Name: 'hotspot/otp+pepper',
      SecretString: VALUE,
      VersionId: 'v-1',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: '2025-01-01T00:00:00.000Z',
    },
    [`${ARN}-binary`]: { ARN: `${ARN}-binary`, Name: 'binary', SecretBinary: 'AAEC', VersionId: 'v-1' },
  });
  let port = 0;
  const saved = { ...process.env };

  beforeAll(async () => {
    port = await extension.start();
  });
  afterAll(() => extension.stop());
  beforeEach(() => {
    resetSecrets();
    extension.requests.length = 0;
    delete process.env.OTP_PEPPER;
    process.env.OTP_PEPPER_ARN = ARN;
    process.env.AWS_SESSION_TOKEN = TOKEN;
    process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String(port);
  });
  afterEach(() => {
    vi.useRealTimers();
    for (const k of [
      'OTP_PEPPER',
      'OTP_PEPPER_ARN',
      'AWS_SESSION_TOKEN',
      'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT',
    ]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    resetSecrets();
  });

  it('reads a secret once per container, however many requests need it', async () => {
    const values = await Promise.all([
      getSecret('OTP_PEPPER'),
      getSecret('OTP_PEPPER'),
      getSecret('OTP_PEPPER'),
    ]);
    expect(values).toEqual([VALUE, VALUE, VALUE]);
    expect(await getSecret('OTP_PEPPER')).toBe(VALUE);
    expect(extension.requests).toHaveLength(1);
  });

  it('asks for the ARN, URL-encoded, with the session token', async () => {
    await getSecret('OTP_PEPPER');
    expect(extension.requests).toEqual([
      { url: `/secretsmanager/get?secretId=${encodeURIComponent(ARN)}`, token: TOKEN },
    ]);
  });

  it('keeps the local mode: the value in the environment wins, and the extension is not asked', async () => {
    process.env.OTP_PEPPER = 'local-pepper';
    expect(await getSecret('OTP_PEPPER')).toBe('local-pepper');
    expect(extension.requests).toEqual([]);
  });

  it.each([
    ['a 500', (_: IncomingMessage, res: ServerResponse) => res.writeHead(500).end()],
    ['a 503', (_: IncomingMessage, res: ServerResponse) => res.writeHead(503).end('{"message":"busy"}')],
    [
      'a 400 (Secrets Manager throttling)',
      (_: IncomingMessage, res: ServerResponse) =>
        res.writeHead(400).end('{"__type":"ThrottlingException","message":"Rate exceeded"}'),
    ],
    [
      'an answer broken off midway',
      (_: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-length': '1000' });
        // Broken off once the first part is on its way.
        res.write(`{"SecretString":"${VALUE}`, () => res.destroy());
      },
    ],
  ])('answers %s with a retryable 503, not cached: the next read succeeds', async (_, script) => {
    extension.next(script);
    const error = await rejection(getSecret('OTP_PEPPER'));
    expect((error as Error).name).toBe('SecretsUnavailable');
    expect(toAppError(error)).toMatchObject({
      code: 'ERR_UNAVAILABLE',
      status: 503,
      headers: { 'Retry-After': '1' },
    });
    expect(shown(error)).not.toContain(VALUE);

    expect(await getSecret('OTP_PEPPER')).toBe(VALUE);
    expect(extension.requests).toHaveLength(2);
  });

  it('answers an unknown secret (the extension says 400) with the same 503', async () => {
    process.env.OTP_PEPPER_ARN = `${ARN}-deleted`;
    const error = await rejection(getSecret('OTP_PEPPER'));
    expect(toAppError(error).code).toBe('ERR_UNAVAILABLE');
    expect((error as Error).message).toBe('Secret OTP_PEPPER: the secrets extension answered 400');
  });

  it('answers a refused connection with a retryable 503, not cached', async () => {
    process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String(await closedPort());
    const error = await rejection(getSecret('OTP_PEPPER'));
    expect(toAppError(error)).toMatchObject({ code: 'ERR_UNAVAILABLE', status: 503 });
    expect((error as Error).message).toContain('ECONNREFUSED');

    process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String(port);
    expect(await getSecret('OTP_PEPPER')).toBe(VALUE);
  });

  it('gives up on an extension that does not answer in time, with a retryable 503, not cached', async () => {
    // Prepare: the extension takes the request and says nothing; the read's timer is the test's.
    let asked = (): void => undefined;
    const reached = new Promise<void>((r) => {
      asked = r;
    });
    extension.next(() => asked());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let settled = false;

    // Act
    const pending = rejection(getSecret('OTP_PEPPER')).finally(() => {
      settled = true;
    });
    await reached;
    await vi.advanceTimersByTimeAsync(EXTENSION_TIMEOUT_MS - 1);
    const beforeTimeout = settled;
    await vi.advanceTimersByTimeAsync(1);
    const error = await pending;
    vi.useRealTimers();

    // Assess
    expect(beforeTimeout).toBe(false);
    expect(toAppError(error)).toMatchObject({ code: 'ERR_UNAVAILABLE', status: 503 });
    expect((error as Error).message).toBe(
      `Secret OTP_PEPPER: the secrets extension did not answer within ${EXTENSION_TIMEOUT_MS} ms`,
    );

    expect(await getSecret('OTP_PEPPER')).toBe(VALUE);
    expect(extension.requests).toHaveLength(2);
  });

  it('fails, as an internal error, on a secret with no string value', async () => {
    process.env.OTP_PEPPER_ARN = `${ARN}-binary`;
    const error = await rejection(getSecret('OTP_PEPPER'));
    expect((error as Error).message).toBe('Secret OTP_PEPPER has no string value');
    expect(toAppError(error).code).toBe('ERR_INTERNAL');
  });

  it('never shows the secret or the session token in an error', async () => {
    // A short value: the JSON parser's own message quotes the first characters of what it read.
    const SHORT = 'h4x0r!';
    const answers: ((req: IncomingMessage, res: ServerResponse) => void)[] = [
      // Not JSON (the bare value, a form): the parser would quote it.
      (_, res) => res.writeHead(200).end(SHORT),
      (_, res) => res.writeHead(200).end(`SecretString=${VALUE}`),
      (_, res) => res.writeHead(200).end(`{"SecretString":"${VALUE}"`),
      // An error status whose body carries both.
      (_, res) => res.writeHead(500).end(`{"SecretString":"${VALUE}","token":"${TOKEN}"}`),
      (_, res) => res.writeHead(200).end(JSON.stringify({ SecretString: { value: VALUE } })),
    ];
    for (const answer of answers) {
      extension.next(answer);
      const error = await rejection(getSecret('OTP_PEPPER'));
      expect(shown(error)).not.toContain(SHORT);
      expect(shown(error)).not.toContain(VALUE);
      expect(shown(error)).not.toContain(TOKEN);
    }
    expect(extension.requests).toHaveLength(answers.length);
  });

  it('fails clearly, as an internal error, when a secret is not configured', async () => {
    delete process.env.OTP_PEPPER_ARN;
    const error = await rejection(getSecret('OTP_PEPPER'));
    expect((error as Error).message).toBe('Secret OTP_PEPPER is not configured');
    expect(toAppError(error).code).toBe('ERR_INTERNAL');
    expect(extension.requests).toEqual([]);
  });

  it('is refused by the extension without the session token, and asks nothing without one', async () => {
    delete process.env.AWS_SESSION_TOKEN;
    await expect(getSecret('OTP_PEPPER')).rejects.toThrow('no AWS_SESSION_TOKEN');
    expect(extension.requests).toEqual([]);

    // The stand-in itself holds to the wire format: no token, no secret.
    const res = await fetch(
      `http://127.0.0.1:${port}/secretsmanager/get?secretId=${encodeURIComponent(ARN)}`,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain(VALUE);
  });
});
