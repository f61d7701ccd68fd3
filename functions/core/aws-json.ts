import { createHash, createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * One call to an AWS JSON 1.1 API (Secrets Manager, ECS), signed with SigV4 from the function's
 * credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: what Lambda gives
 * every function).
 *
 * Why not the SDK's clients: the front's certificate rotation is their only user, for two calls a
 * day; their packages are not among the project's dependencies, and this is the whole of what the
 * rotation needs of them. The endpoint of a service can be moved with the SDK's own variables
 * (`AWS_ENDPOINT_URL_SECRETS_MANAGER`, `AWS_ENDPOINT_URL_ECS`): the tests point them at a local
 * server that checks every request's signature.
 */

export interface AwsService {
  /** SigV4 signing name and endpoint prefix (`secretsmanager`, `ecs`). */
  name: string;
  /** The X-Amz-Target prefix (`secretsmanager`, `AmazonEC2ContainerServiceV20141113`). */
  target: string;
  /** The SDK's variable suffix for an endpoint override (`SECRETS_MANAGER`, `ECS`). */
  endpointEnv: string;
}

export const SECRETS_MANAGER: AwsService = {
  name: 'secretsmanager',
  target: 'secretsmanager',
  endpointEnv: 'SECRETS_MANAGER',
};
export const ECS: AwsService = {
  name: 'ecs',
  target: 'AmazonEC2ContainerServiceV20141113',
  endpointEnv: 'ECS',
};

/** An AWS error answer: `code` is its `__type` without the namespace (`ResourceNotFoundException`). */
export class AwsError extends Error {
  override readonly name = 'AwsError';
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

const TIMEOUT_MS = 5000;

export async function awsJson<T = Record<string, unknown>>(
  service: AwsService,
  action: string,
  body: Record<string, unknown>,
): Promise<T> {
  const region = process.env.AWS_REGION;
  const accessKey = process.env.AWS_ACCESS_KEY_ID;
  const secretKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!region || !accessKey || !secretKey) throw new Error(`${service.name}: no AWS region or credentials`);
  const token = process.env.AWS_SESSION_TOKEN;
  const endpoint = new URL(
    process.env[`AWS_ENDPOINT_URL_${service.endpointEnv}`] ||
      `https://${service.name}.${region}.amazonaws.com/`,
  );
  const payload = JSON.stringify(body);
  const amzDate = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    host: endpoint.host,
    'x-amz-date': amzDate,
    'x-amz-target': `${service.target}.${action}`,
    ...(token ? { 'x-amz-security-token': token } : {}),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = [
    'POST',
    '/',
    '',
    names.map((n) => `${n}:${headers[n]}\n`).join(''),
    signedHeaders,
    sha256(payload),
  ].join('\n');
  const scope = `${day}/${region}/${service.name}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretKey}`, day), region), service.name), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;

  const send = endpoint.protocol === 'http:' ? httpRequest : httpsRequest;
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = send(
      endpoint,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${service.name} ${action}: no answer within ${TIMEOUT_MS} ms`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    if (status >= 200 && status < 300) throw new Error(`${service.name} ${action}: the answer is not JSON`);
  }
  if (status < 200 || status > 299) {
    const code = String(parsed.__type ?? `HTTP${status}`).replace(/^.*#/, '');
    // The message is AWS's own (never a secret's value: a failed call has none to echo).
    throw new AwsError(
      code,
      status,
      `${service.name} ${action}: ${code} ${String(parsed.message ?? parsed.Message ?? '')}`,
    );
  }
  return parsed as T;
}
