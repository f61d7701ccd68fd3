import { createHash, createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * SNS `Publish` (an SMS to a phone number, or a message to a topic) as one signed HTTPS call:
 * the Query protocol's form-encoded POST, signed with AWS Signature Version 4 from the role's
 * credentials in the environment (where Lambda puts them), retried as the SDK does (3 attempts,
 * jittered back-off, on a 5xx, a throttling answer or a network error).
 *
 * Why not the SDK's SNS client: it is 36 KB of every bundle that sends an SMS (its protocol,
 * its XML parser and every SNS error class), for one call whose request and answer are a few
 * lines. `AWS_ENDPOINT_URL_SNS` (else `AWS_ENDPOINT_URL`) points it elsewhere, as it does the SDK.
 */
export interface PublishInput {
  PhoneNumber?: string;
  TopicArn?: string;
  Subject?: string;
  Message: string;
  MessageAttributes?: Record<string, { DataType: 'String'; StringValue: string }>;
}

/** SNS refused the call: `name` is its error code (`InvalidParameter`, `AuthorizationError`...). */
export class SnsError extends Error {
  constructor(
    code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = code;
  }
}

const ATTEMPTS = 3;
/** Codes SNS (and AWS services generally) answer when they throttle: retried, like a 5xx. */
const THROTTLED = new Set([
  'Throttling',
  'ThrottlingException',
  'Throttled',
  'RequestLimitExceeded',
  'TooManyRequestsException',
]);

/** RFC 3986 encoding, as SigV4 and the Query protocol want it (`encodeURIComponent` leaves `!'()*`). */
const encode = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The Query protocol's form body of a Publish. */
export function publishBody(input: PublishInput): string {
  const params: [string, string][] = [
    ['Action', 'Publish'],
    ['Version', '2010-03-31'],
  ];
  if (input.TopicArn !== undefined) params.push(['TopicArn', input.TopicArn]);
  if (input.PhoneNumber !== undefined) params.push(['PhoneNumber', input.PhoneNumber]);
  if (input.Subject !== undefined) params.push(['Subject', input.Subject]);
  params.push(['Message', input.Message]);
  Object.entries(input.MessageAttributes ?? {}).forEach(([name, value], i) => {
    const entry = `MessageAttributes.entry.${i + 1}`;
    params.push([`${entry}.Name`, name], [`${entry}.Value.DataType`, value.DataType]);
    params.push([`${entry}.Value.StringValue`, value.StringValue]);
  });
  return params.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * The SigV4 `Authorization` header of a request whose `headers` (lower-case names, `host` and
 * `x-amz-date` among them) are all signed; `amzDate` is the `x-amz-date` value.
 */
export function sigV4Authorization(o: {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  credentials: Credentials;
  region: string;
  service: string;
  amzDate: string;
}): string {
  const names = Object.keys(o.headers).sort();
  const canonical = [
    o.method,
    o.path,
    '',
    ...names.map((n) => `${n}:${(o.headers[n] as string).trim().replace(/\s+/g, ' ')}`),
    '',
    names.join(';'),
    sha256(o.body),
  ].join('\n');
  const day = o.amzDate.slice(0, 8);
  const scope = `${day}/${o.region}/${o.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', o.amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${o.credentials.secretAccessKey}`, day), o.region), o.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${o.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}

function credentialsFromEnv(): Credentials {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY)
    throw new Error(
      'Unable to find environment variable credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)',
    );
  return {
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
  };
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** One POST; answers its status and body, or rejects with the network error (its `code` kept). */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', headers, agent: secure ? agents.https : agents.http },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';

/** Publishes one message; resolves once SNS accepted it, rejects with an `SnsError` or the network error. */
export async function publish(input: PublishInput): Promise<void> {
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const url = new URL(
    process.env.AWS_ENDPOINT_URL_SNS ??
      process.env.AWS_ENDPOINT_URL ??
      `https://sns.${region}.amazonaws.com/`,
  );
  const body = publishBody(input);
  for (let attempt = 1; ; attempt++) {
    const credentials = credentialsFromEnv();
    const amzDate = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const signed: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      host: url.host,
      'x-amz-date': amzDate,
      ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
    };
    const authorization = sigV4Authorization({
      method: 'POST',
      path: url.pathname || '/',
      headers: signed,
      body,
      credentials,
      region,
      service: 'sns',
      amzDate,
    });
    let failure: Error;
    try {
      const res = await post(
        url,
        { ...signed, authorization, 'content-length': String(Buffer.byteLength(body)) },
        body,
      );
      if (res.status >= 200 && res.status < 300) return;
      const code = tag(res.text, 'Code') || `Http${res.status}`;
      failure = new SnsError(code, tag(res.text, 'Message') || `SNS answered ${res.status}`, res.status);
      if (res.status < 500 && !THROTTLED.has(code)) throw failure;
    } catch (error) {
      if (error instanceof SnsError && error.status < 500 && !THROTTLED.has(error.name)) throw error;
      failure = error as Error;
    }
    if (attempt >= ATTEMPTS) throw failure;
    await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** (attempt - 1)));
  }
}
