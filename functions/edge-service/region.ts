// How the edge calls its region's edge routes over kept-alive connections, and how it reads their answers.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * How the edge speaks to its region's edge routes (`/api/v1/edge/*`, its own token), and how it
 * reads their answers: a 429 (the region's throttle), a 5xx, a timeout or a refused connection
 * is a region that cannot answer now, answered from the replica and retried later; it is never
 * passed to the router. A 502 `ERR_RADIUS_CREDENTIALS` is the region refusing this edge's token.
 */
export type RegionAnswer =
  | { ok: true; status: number; body: string; contentType: string }
  | {
      ok: false;
      /** `throttled` 429, `failed` 5xx, `timeout` no answer in time, `unreachable` no connection, `revoked` the token refused. */
      reason: 'throttled' | 'failed' | 'timeout' | 'unreachable' | 'revoked';
      status?: number;
      /** The region's Retry-After, in ms, when it gave one. */
      retryAfterMs?: number;
    };

export interface Region {
  post: (path: string, body: unknown, timeoutMs: number) => Promise<RegionAnswer>;
  /** Closes the kept-alive connections. */
  close: () => void;
}

/** The region's Retry-After header (seconds, or an HTTP date) in ms. */
function retryAfter(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

const errorCode = (text: string): unknown => {
  try {
    return (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return undefined;
  }
};

/**
 * The region's client: node's http(s) with kept-alive connections (a fraction of fetch's time and
 * memory per call, which a replay of a day's journal makes a million times), each call bounded by
 * `timeoutMs` from its start to its last byte.
 */
export function regionOf(regionUrl: string, token: string): Region {
  const base = new URL(regionUrl.replace(/\/+$/, ''));
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 32, keepAliveMsecs: 10_000 })
    : new HttpAgent({ keepAlive: true, maxSockets: 32, keepAliveMsecs: 10_000 });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/+$/, '');
  return {
    close: () => agent.destroy(),
    post: (path, body, timeoutMs) =>
      new Promise<RegionAnswer>((done) => {
        const payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
        let settled = false;
        const finish = (answer: RegionAnswer) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          done(answer);
        };
        const req = send(
          {
            protocol: base.protocol,
            hostname: base.hostname,
            port: base.port || (secure ? 443 : 80),
            path: `${prefix}${path}`,
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': payload.length,
              authorization: `Bearer ${token}`,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (d: Buffer) => chunks.push(d));
            res.on('error', () => finish({ ok: false, reason: 'unreachable' }));
            res.on('end', () => finish(classify(res, Buffer.concat(chunks).toString('utf8'))));
          },
        );
        const timer = setTimeout(() => {
          finish({ ok: false, reason: 'timeout' });
          req.destroy();
        }, timeoutMs);
        req.on('error', () => finish({ ok: false, reason: 'unreachable' }));
        req.end(payload);
      }),
  };
}

function classify(res: IncomingMessage, text: string): RegionAnswer {
  const status = res.statusCode ?? 502;
  if (status === 429) {
    const wait = retryAfter(header(res, 'retry-after'), Date.now());
    return { ok: false, reason: 'throttled', status, ...(wait === undefined ? {} : { retryAfterMs: wait }) };
  }
  if (status >= 500) {
    const revoked = status === 502 && errorCode(text) === 'ERR_RADIUS_CREDENTIALS';
    return { ok: false, reason: revoked ? 'revoked' : 'failed', status };
  }
  return { ok: true, status, body: text, contentType: header(res, 'content-type') ?? 'application/json' };
}

const header = (res: IncomingMessage, name: string): string | null => {
  const value = res.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};
