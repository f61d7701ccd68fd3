import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bin/local/dynamodb-local.js';
import { setDdb } from '../../functions/core/ddb.js';
import { call, useLocalServer } from '../support/http.js';

// Unavailability is a contract: whatever is wrong with DynamoDB, the client gets a 503
// ERR_UNAVAILABLE with Retry-After, within the function's budget, never a 500.

const server = useLocalServer();
const realEndpoint = () => process.env.DYNAMODB_ENDPOINT as string;
let saved = '';

const savedTimeout = process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
const savedConnectTimeout = process.env.DYNAMODB_CONNECT_TIMEOUT_MS;
function pointDynamoAt(endpoint: string) {
  saved ||= realEndpoint();
  process.env.DYNAMODB_ENDPOINT = endpoint;
  // The deployed functions' bound (the tests' DynamoDB Local is given more).
  delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
  delete process.env.DYNAMODB_CONNECT_TIMEOUT_MS;
  setDdb(undefined);
}

afterEach(() => {
  if (saved) process.env.DYNAMODB_ENDPOINT = saved;
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS = savedTimeout;
  process.env.DYNAMODB_CONNECT_TIMEOUT_MS = savedConnectTimeout;
  setDdb(undefined);
});

const sockets: Socket[] = [];
let frozen: Server | undefined;
afterAll(() => {
  for (const s of sockets) s.destroy();
  frozen?.close();
});

describe('DynamoDB unavailable, through the local server', () => {
  it('answers 503 ERR_UNAVAILABLE with Retry-After when DynamoDB refuses connections', async () => {
    pointDynamoAt(`http://127.0.0.1:${await freePort()}`);
    const res = await call<{ error: { code: string } }>(server.url(), 'GET', '/api/v1/forfaits');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('ERR_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('1');
  });

  // The calls' bounds add up to less than the function's timeout: test/unit/call-deadlines.test.ts.
  it('answers 503, not a hang, when DynamoDB accepts the connection and never answers', async () => {
    frozen = createServer((socket) => {
      sockets.push(socket); // holds it open, says nothing
    });
    const port = await freePort();
    await new Promise<void>((r) => frozen?.listen(port, '127.0.0.1', () => r()));
    pointDynamoAt(`http://127.0.0.1:${port}`);
    const res = await call<{ error: { code: string } }>(server.url(), 'POST', '/api/v1/auth/otp/request', {
      body: { msisdn: '+2250712345670' },
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('ERR_UNAVAILABLE');
  }, 20_000);
});
