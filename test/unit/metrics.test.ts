import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endpoint } from '../../functions/core/http.js';
import { endInvocation } from '../../functions/core/log.js';
import { countMetric } from '../../functions/core/metrics.js';
import { metrics } from '../../functions/core/metrics-emf.mjs';

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

/** What each flush published, as EMF documents (nothing is written: the tests turn metrics off). */
let published: Record<string, unknown>[] = [];
beforeEach(() => {
  published = [];
  vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => {
    published.push(metrics.serializeMetrics() as unknown as Record<string, unknown>);
    metrics.clearMetrics();
    return metrics;
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  metrics.clearMetrics();
});

describe('business metrics', () => {
  it('are written as one EMF document when the invocation ends', async () => {
    countMetric('OtpSent');
    countMetric('OtpSent');
    await endInvocation();
    expect(published).toHaveLength(1);
    const emf = published[0] as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[] };
    };
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'HotspotPlatform',
      Metrics: [{ Name: 'OtpSent', Unit: 'Count' }],
    });
    expect(emf.OtpSent).toEqual([1, 1]); // CloudWatch sums the values of one document
    expect(emf.service).toBe('hotspot-api');
    // Flushed once: the next invocation starts empty.
    await endInvocation();
    expect(published).toHaveLength(1);
  });

  it('an invocation that counts nothing publishes nothing', async () => {
    await endInvocation();
    expect(published).toEqual([]);
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
    expect((await ok(event, context)).statusCode).toBe(204);
    expect(published.map((d) => d.VoucherRedeemed)).toEqual([1]);
    expect((await failing(event, context)).statusCode).toBe(500);
    expect(published.map((d) => d.VoucherRedeemed)).toEqual([1, 1]);
  });
});

describe("a cell's metrics", () => {
  it("carry the cell (CELL_ID) beside the service, the dimensions the cell's alarms read", async () => {
    // Prepare: the module as a function of cell `ci` loads it (CELL_ID set before its import).
    const saved = process.env.CELL_ID;
    process.env.CELL_ID = 'ci';
    vi.resetModules();
    try {
      const cellMetrics = await import('../../functions/core/metrics.js');
      const { metrics: cellEmf } = await import('../../functions/core/metrics-emf.mjs');
      const { endInvocation: endCellInvocation } = await import('../../functions/core/log.js');
      const { ourDimensions } = await import('../../lib/observability.js');
      let emf:
        | (Record<string, unknown> & { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] } })
        | undefined;
      vi.spyOn(cellEmf, 'publishStoredMetrics').mockImplementation(() => {
        emf = cellEmf.serializeMetrics() as unknown as typeof emf;
        cellEmf.clearMetrics();
        return cellEmf;
      });

      // Act
      cellMetrics.countMetric('RadiusAccept');
      await endCellInvocation();
      if (!emf) throw new Error('nothing published');

      // Assess
      const dimensions = Object.keys(ourDimensions('ci'));
      expect(emf._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([expect.arrayContaining(dimensions)]);
      expect(emf._aws.CloudWatchMetrics[0]?.Dimensions[0]).toHaveLength(dimensions.length);
      expect(emf).toMatchObject(ourDimensions('ci'));
    } finally {
      if (saved === undefined) delete process.env.CELL_ID;
      else process.env.CELL_ID = saved;
      vi.resetModules();
    }
  });
});
