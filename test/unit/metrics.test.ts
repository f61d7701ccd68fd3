import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endpoint } from '../../functions/core/http.js';
import { endInvocation } from '../../functions/core/log.js';
import { countMetric } from '../../functions/core/metrics.js';
import { metrics } from '../../functions/core/metrics-emf.mjs';
import { ourDimensions } from '../../lib/observability.js';

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

/**
 * The metrics modules as a process with this environment loads them (CELL_ID, STAGE and
 * METRICS_FLUSH_S are read at import), and what each of its flushes published.
 */
async function loadedWith(env: Record<string, string>) {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  vi.resetModules();
  try {
    const counting = await import('../../functions/core/metrics.js');
    const { metrics: emf } = await import('../../functions/core/metrics-emf.mjs');
    const { endInvocation: end } = await import('../../functions/core/log.js');
    const docs: (Record<string, unknown> & { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] } })[] =
      [];
    vi.spyOn(emf, 'publishStoredMetrics').mockImplementation(() => {
      docs.push(emf.serializeMetrics() as unknown as (typeof docs)[number]);
      emf.clearMetrics();
      return emf;
    });
    return { ...counting, end, docs };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe("a cell's stages", () => {
  it('write their own stage, so that staging and production of one cell never read each other', async () => {
    // Prepare: the same cell's function in staging, then in production.
    const staging = await loadedWith({ CELL_ID: 'ci', STAGE: 'staging' });
    staging.countMetric('RadiusAccept');
    await staging.end();
    const prod = await loadedWith({ CELL_ID: 'ci', STAGE: 'prod' });
    prod.countMetric('RadiusAccept');
    await prod.end();
    vi.resetModules();

    // Assess: each document carries its own stage, as each stage's alarms read (lib/observability.ts).
    expect(staging.docs[0]).toMatchObject(ourDimensions('ci', 'staging'));
    expect(prod.docs[0]).toMatchObject(ourDimensions('ci', 'prod'));
    expect(ourDimensions('ci', 'staging')).not.toEqual(ourDimensions('ci', 'prod'));
  });
});

describe("a long-running server's metrics (METRICS_FLUSH_S)", () => {
  it('are summed in memory and written as one document per flush, not one per request', async () => {
    // Prepare: the RADIUS front's service counts a thousand answers between two flushes.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const server = await loadedWith({ METRICS_FLUSH_S: '60', CELL_ID: 'ci', STAGE: 'test' });
    for (let i = 0; i < 1000; i++) {
      server.countMetric('FrontLoginCalls');
      if (i % 10 === 0) server.countMetric('FrontRefusedUnknownCode');
      await server.end();
    }
    // Assess: nothing written per request...
    expect(server.docs).toEqual([]);

    // Act: the minute's flush, and the next minute's with nothing new.
    try {
      await vi.advanceTimersByTimeAsync(60_000);
      await vi.waitFor(() => expect(server.docs).toHaveLength(1));
      await vi.advanceTimersByTimeAsync(60_000);
    } finally {
      vi.useRealTimers();
      vi.resetModules();
    }

    // ...then one document with the sums, and a flush with nothing new writes nothing.
    expect(server.docs).toHaveLength(1);
    expect(server.docs[0]).toMatchObject({ FrontLoginCalls: 1000, FrontRefusedUnknownCode: 100 });
    expect(server.docs[0]).toMatchObject(ourDimensions('ci', 'test'));
  });
});

describe("a cell's metrics", () => {
  it("carry the cell (CELL_ID) and the stage beside the service, the dimensions the cell's alarms read", async () => {
    // Prepare: the module as a function of cell `ci` loads it (CELL_ID set before its import).
    const saved = process.env.CELL_ID;
    process.env.CELL_ID = 'ci';
    vi.resetModules();
    try {
      const cellMetrics = await import('../../functions/core/metrics.js');
      const { metrics: cellEmf } = await import('../../functions/core/metrics-emf.mjs');
      const { endInvocation: endCellInvocation } = await import('../../functions/core/log.js');
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

      // Assess: the cell and the stage (STAGE, `test` here), exactly the alarms' dimensions.
      const dimensions = Object.keys(ourDimensions('ci', 'test'));
      expect(emf._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([expect.arrayContaining(dimensions)]);
      expect(emf._aws.CloudWatchMetrics[0]?.Dimensions[0]).toHaveLength(dimensions.length);
      expect(emf).toMatchObject(ourDimensions('ci', 'test'));
    } finally {
      if (saved === undefined) delete process.env.CELL_ID;
      else process.env.CELL_ID = saved;
      vi.resetModules();
    }
  });
});
