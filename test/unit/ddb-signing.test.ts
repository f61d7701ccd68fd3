import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ddb, itemClient, setDdb } from '../../functions/core/ddb.js';

/**
 * The clients keep one SigV4 signer per auth scheme instead of the SDK's new one per call
 * (functions/core/ddb.ts, `lighten`). DynamoDB Local checks no signature, so every other test
 * would pass with a wrong one: here each request a client sends is checked against SigV4
 * computed from the specification with node:crypto, not with the SDK's own signer.
 */

interface Seen {
  headers: IncomingHttpHeaders;
  body: string;
}

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The signature SigV4 gives this request (POST / with no query) with the local credentials. */
function expectedSignature(seen: Seen, secret: string, region: string): string | undefined {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(seen.headers.authorization),
    );
  if (!auth) return undefined;
  const [, day, scopeRegion, service, signedHeaders] = auth as unknown as string[];
  if (scopeRegion !== region || service !== 'dynamodb') return undefined;
  const names = (signedHeaders as string).split(';');
  const canonicalHeaders = names
    .map((n) => `${n}:${String(seen.headers[n]).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonical = ['POST', '/', '', canonicalHeaders, signedHeaders, hex(seen.body)].join('\n');
  const scope = `${day}/${region}/dynamodb/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', String(seen.headers['x-amz-date']), scope, hex(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day as string), region), 'dynamodb'), 'aws4_request');
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
}

describe('DynamoDB clients sign every call as SigV4 specifies', () => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end('{}');
    });
  });
  const saved = process.env.DYNAMODB_ENDPOINT;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Clients made for this endpoint.
    setDdb(undefined);
  });
  afterAll(async () => {
    process.env.DYNAMODB_ENDPOINT = saved;
    setDdb(undefined);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('the item client: its first call, and later calls with the signer it kept', async () => {
    seen.length = 0;
    const key = { pk: { S: 'SIGNED' }, sk: { S: 'A' } };
    for (let i = 0; i < 3; i++)
      await itemClient().send(new GetItemCommand({ TableName: 'signed', Key: key }));
    await Promise.all(
      [1, 2, 3].map((n) =>
        itemClient().send(new GetItemCommand({ TableName: 'signed', Key: { ...key, n: { N: String(n) } } })),
      ),
    );
    expect(seen).toHaveLength(6);
    for (const s of seen) {
      const signature = /Signature=([0-9a-f]{64})$/.exec(String(s.headers.authorization))?.[1];
      expect(signature).toBeDefined();
      expect(signature).toBe(expectedSignature(s, 'local', process.env.AWS_REGION ?? 'local'));
    }
    // One signer for every call: the SDK's default builds one per call.
    const signer = (itemClient().config as unknown as { signer: () => Promise<unknown> }).signer;
    expect(await signer()).toBe(await signer());
  });

  it('the document client (queries and instrumented tests go through it)', async () => {
    seen.length = 0;
    await ddb().send(new GetCommand({ TableName: 'signed', Key: { pk: 'SIGNED', sk: 'B' } }));
    await ddb().send(new GetCommand({ TableName: 'signed', Key: { pk: 'SIGNED', sk: 'C' } }));
    expect(seen).toHaveLength(2);
    for (const s of seen) {
      expect(/Signature=([0-9a-f]{64})$/.exec(String(s.headers.authorization))?.[1]).toBe(
        expectedSignature(s, 'local', process.env.AWS_REGION ?? 'local'),
      );
    }
  });

  it('a wrong secret does not verify (the check can fail)', async () => {
    seen.length = 0;
    await itemClient().send(
      new GetItemCommand({ TableName: 'signed', Key: { pk: { S: 'X' }, sk: { S: 'Y' } } }),
    );
    const s = seen[0] as Seen;
    expect(expectedSignature(s, 'not-local', process.env.AWS_REGION ?? 'local')).not.toBe(
      /Signature=([0-9a-f]{64})$/.exec(String(s.headers.authorization))?.[1],
    );
  });
});
