import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endpoint } from '../../functions/core/http.js';
import { endInvocation } from '../../functions/core/log.js';
import { ageMetric, countMetric } from '../../functions/core/metrics.js';

const event = {
  version: '2.0',
  routeKey: 'GET /api/v1/forfaits',
  rawPath: '/api/v1/forfaits',
  rawQueryString: '',
  headers: {},
  requestContext: { http: { method: 'GET', path: '/api/v1/forfaits' }, requestId: 'r-1' },
  isBase64Encoded: false,
} as unknown as APIGatewayProxyEventV2;
const context = { awsRequestId: 'r-1', functionName: 'f', getRemainingTimeInMillis: () => 5000 } as Context;

/** The EMF lines written on stdout while `act` runs, with metrics on (the tests turn them off). */
async function written(act: () => unknown): Promise<Record<string, unknown>[]> {
  const saved = process.env.POWERTOOLS_METRICS_DISABLED;
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await act();
  } finally {
    write.mockRestore();
    process.env.POWERTOOLS_METRICS_DISABLED = saved;
  }
  return lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

afterEach(() => {
  vi.restoreAllMocks();
  endInvocation();
});

describe('business metrics', () => {
  it('are written as one EMF document when the invocation ends', async () => {
    const docs = await written(() => {
      countMetric('OtpSent');
      countMetric('OtpSent');
      ageMetric('OldestPendingPaymentAgeS', 12.4);
      endInvocation();
    });
    expect(docs).toHaveLength(1);
    expect(docs[0]).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: 'HotspotPlatform',
            Dimensions: [['service']],
            Metrics: [
              { Name: 'OtpSent', Unit: 'Count' },
              { Name: 'OldestPendingPaymentAgeS', Unit: 'Seconds' },
            ],
          },
        ],
      },
      service: 'hotspot-api',
      OtpSent: [1, 1], // CloudWatch sums the values of one document
      OldestPendingPaymentAgeS: 12,
    });
    // Written once: the next invocation starts empty.
    expect(await written(() => endInvocation())).toEqual([]);
  });

  it('an invocation that counts nothing writes nothing', async () => {
    expect(await written(() => endInvocation())).toEqual([]);
  });

  it('writes nothing with POWERTOOLS_METRICS_DISABLED, and forgets what was counted', async () => {
    countMetric('OtpSent');
    endInvocation(); // disabled in the tests' environment (test/support/setup.ts)
    expect(await written(() => endInvocation())).toEqual([]);
  });

  it('flushes a metric at 100 values, as CloudWatch takes no more in one document', async () => {
    const docs = await written(() => {
      for (let i = 0; i < 101; i++) countMetric('RadiusAccounting');
      endInvocation();
    });
    expect(docs.map((d) => (d.RadiusAccounting as number[] | number).toString().split(',').length)).toEqual([
      100, 1,
    ]);
  });

  it('the endpoint wrapper flushes them, also when the handler fails', async () => {
    const ok = endpoint('GET /api/v1/forfaits', { response: { status: 204 } }, async () => {
      countMetric('VoucherRedeemed');
      return { status: 204 };
    });
    const failing = endpoint('GET /api/v1/forfaits', { response: { status: 204 } }, async () => {
      countMetric('VoucherRedeemed');
      throw new Error('boom');
    });
    const docs = await written(async () => {
      expect((await ok(event, context)).statusCode).toBe(204);
      expect((await failing(event, context)).statusCode).toBe(500);
    });
    expect(docs.map((d) => d.VoucherRedeemed)).toEqual([1, 1]);
  });
});
