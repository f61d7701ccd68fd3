import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CONSOLE_ASSETS, CONSOLE_SCRIPT } from '../../functions/console/assets.generated.js';
import { handler } from '../../functions/console/console-asset.js';

/** The asset route as API Gateway calls it, with the browser's Accept-Encoding or none. */
async function get(file: string, acceptEncoding?: string): Promise<APIGatewayProxyStructuredResultV2> {
  const event = {
    version: '2.0',
    routeKey: 'GET /console/assets/{file}',
    rawPath: `/console/assets/${file}`,
    rawQueryString: '',
    headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {},
    pathParameters: { file },
    requestContext: {
      http: { method: 'GET', path: `/console/assets/${file}`, sourceIp: '127.0.0.1' },
      requestId: 'r',
    },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  return (await handler(event, {} as Context)) as APIGatewayProxyStructuredResultV2;
}

describe("the console's assets on the wire", () => {
  const text = Buffer.from(CONSOLE_ASSETS[CONSOLE_SCRIPT]?.base64 ?? '', 'base64').toString('utf8');

  it('are gzipped for a browser that accepts gzip, and the same script once unzipped', async () => {
    const a = await get(CONSOLE_SCRIPT, 'gzip, deflate, br');
    expect(a.statusCode).toBe(200);
    expect(a.headers?.['content-encoding']).toBe('gzip');
    expect(a.headers?.vary).toBe('accept-encoding');
    expect(a.isBase64Encoded).toBe(true);
    const bytes = Buffer.from(a.body ?? '', 'base64');
    expect(gunzipSync(bytes).toString('utf8')).toBe(text);
    expect(bytes.length).toBeLessThan(text.length / 2);
  });

  it('are sent as they are to a client that does not ask for gzip', async () => {
    const a = await get(CONSOLE_SCRIPT);
    expect(a.headers?.['content-encoding']).toBeUndefined();
    expect(a.isBase64Encoded).toBeFalsy();
    expect(a.body).toBe(text);
  });
});
