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

export function regionOf(regionUrl: string, token: string): Region {
  const base = regionUrl.replace(/\/+$/, '');
  return {
    post: async (path, body, timeoutMs) => {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: typeof body === 'string' ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const name = (error as Error | undefined)?.name;
        return {
          ok: false,
          reason: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable',
        };
      }
      let text: string;
      try {
        text = await res.text();
      } catch {
        return { ok: false, reason: 'timeout', status: res.status };
      }
      if (res.status === 429) {
        const wait = retryAfter(res.headers.get('retry-after'), Date.now());
        return {
          ok: false,
          reason: 'throttled',
          status: 429,
          ...(wait === undefined ? {} : { retryAfterMs: wait }),
        };
      }
      if (res.status >= 500) {
        const revoked = res.status === 502 && errorCode(text) === 'ERR_RADIUS_CREDENTIALS';
        return { ok: false, reason: revoked ? 'revoked' : 'failed', status: res.status };
      }
      return {
        ok: true,
        status: res.status,
        body: text,
        contentType: res.headers.get('content-type') ?? 'application/json',
      };
    },
  };
}
