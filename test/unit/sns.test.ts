import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { publish, publishBody, sigV4Authorization } from '../../functions/core/sns.js';
import { fakeSns } from '../support/fake-sns.js';

// functions/core/sns.ts speaks SNS's wire format itself; the SDK's client is the reference here.

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const input = {
  PhoneNumber: '+2250712345678',
  Message: "Votre code: K7PX-2M9Q (valable 24 h) ! * 'é' ~",
  MessageAttributes: {
    'AWS.SNS.SMS.SMSType': { DataType: 'String' as const, StringValue: 'Transactional' },
    'AWS.SNS.SMS.SenderID': { DataType: 'String' as const, StringValue: 'HOTSPOT' },
  },
};

let sns: Awaited<ReturnType<typeof fakeSns>>;
const saved = { ...process.env };
beforeAll(async () => {
  sns = await fakeSns();
});
afterAll(() => sns.close());
afterEach(() => {
  sns.requests.length = 0;
  for (const k of ['AWS_ENDPOINT_URL_SNS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});

/** What the SDK's own client sends for the same Publish. */
async function sdkRequest() {
  const client = new SNSClient({ endpoint: sns.url, region: 'eu-west-1', credentials, maxAttempts: 1 });
  await client.send(new PublishCommand(input));
  client.destroy();
  return sns.requests.splice(0)[0];
}

describe('SNS Publish without the SDK', () => {
  it('sends the body the SDK sends', async () => {
    const sdk = await sdkRequest();
    expect(Object.fromEntries(new URLSearchParams(publishBody(input)))).toEqual(
      Object.fromEntries(sdk?.params ?? []),
    );
  });

  it("signs as the SDK does: its request's signature, computed again over the headers it signed", async () => {
    const sdk = (await sdkRequest()) as NonNullable<Awaited<ReturnType<typeof sdkRequest>>>;
    const authorization = sdk.headers.authorization as string;
    const signedNames = (/SignedHeaders=([^,]+)/.exec(authorization)?.[1] as string).split(';');
    const headers = Object.fromEntries(signedNames.map((n) => [n, String(sdk.headers[n])]));
    expect(
      sigV4Authorization({
        method: 'POST',
        path: '/',
        headers,
        body: sdk.body,
        credentials,
        region: 'eu-west-1',
        service: 'sns',
        amzDate: headers['x-amz-date'] as string,
      }),
    ).toBe(authorization);
  });

  it('signs with the session token of the environment, and retries a 5xx and a throttling answer', async () => {
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SNS: sns.url,
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_SESSION_TOKEN: 'session-token',
    });
    sns.fail({ status: 500, code: 'InternalError' }, { status: 400, code: 'Throttling' });
    await publish(input);
    expect(sns.requests).toHaveLength(3);
    expect(sns.requests[2]?.headers['x-amz-security-token']).toBe('session-token');
    expect(sns.requests[2]?.headers.authorization).toContain('x-amz-security-token');
  });

  it('gives up after 3 attempts, and does not retry a refusal', async () => {
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SNS: sns.url,
      AWS_ACCESS_KEY_ID: 'A',
      AWS_SECRET_ACCESS_KEY: 'S',
    });
    sns.fail(...Array.from({ length: 3 }, () => ({ status: 503, code: 'ServiceUnavailable' })));
    await expect(publish(input)).rejects.toMatchObject({ name: 'ServiceUnavailable' });
    expect(sns.requests).toHaveLength(3);
    sns.fail({ status: 400, code: 'InvalidParameter' });
    await expect(publish(input)).rejects.toMatchObject({ name: 'InvalidParameter' });
    expect(sns.requests).toHaveLength(4);
  });

  it('fails loudly without credentials in the environment', async () => {
    process.env.AWS_ENDPOINT_URL_SNS = sns.url;
    delete process.env.AWS_ACCESS_KEY_ID;
    await expect(publish(input)).rejects.toThrow('Unable to find environment variable credentials');
    expect(sns.requests).toHaveLength(0);
  });
});
