import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { endpoint } from '../../functions/core/http.js';
import { endInvocation } from '../../functions/core/log.js';
import { countMetric, metrics } from '../../functions/core/metrics.js';

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

afterEach(() => {
  vi.restoreAllMocks();
  metrics.clearMetrics();
});

describe('business metrics', () => {
  it('are written as one EMF document when the invocation ends', () => {
    const publish = vi.spyOn(metrics, 'publishStoredMetrics');
    countMetric('OtpSent');
    countMetric('OtpSent');
    const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[] };
    };
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'HotspotPlatform',
      Metrics: [{ Name: 'OtpSent', Unit: 'Count' }],
    });
    expect(emf.OtpSent).toEqual([1, 1]); // CloudWatch sums the values of one document
    endInvocation();
    expect(publish).toHaveBeenCalledTimes(1);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it('an invocation that counts nothing publishes nothing', () => {
    const publish = vi.spyOn(metrics, 'publishStoredMetrics');
    endInvocation();
    expect(publish).not.toHaveBeenCalled();
  });

  it('the endpoint wrapper flushes them, also when the handler fails', async () => {
    const publish = vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => metrics);
    const ok = endpoint('GET /api/v1/forfaits', { response: { status: 204 } }, async () => {
      countMetric('VoucherRedeemed');
      return { status: 204 };
    });
    const failing = endpoint('GET /api/v1/forfaits', { response: { status: 204 } }, async () => {
      countMetric('VoucherRedeemed');
      throw new Error('boom');
    });
    expect((await ok(event, context)).statusCode).toBe(204);
    expect(publish).toHaveBeenCalledTimes(1);
    expect((await failing(event, context)).statusCode).toBe(500);
    expect(publish).toHaveBeenCalledTimes(2);
  });
});
