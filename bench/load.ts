import { Agent, request } from 'node:http';

export interface LoadFigure {
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  rps: number;
  statuses: Record<number, number>;
}

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

function once(base: URL, spec: RequestSpec, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: spec.method,
        path: spec.path,
        agent,
        headers: { ...(spec.body ? { 'content-type': 'application/json' } : {}), ...spec.headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/**
 * Sends `total` requests over `connections` keep-alive connections and measures each one.
 * `next(i)` may vary the request (a new id each time, say). Bounded in count: it stops by itself.
 */
export async function load(
  baseUrl: string,
  next: (i: number) => RequestSpec,
  options: { total: number; connections: number },
): Promise<LoadFigure> {
  const base = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (issued < options.total) {
        const i = issued++;
        const t0 = performance.now();
        const status = await once(base, next(i), agent);
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    rps: latencies.length / elapsed,
    statuses,
  };
}
