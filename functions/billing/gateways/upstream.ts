// A call to a payment gateway's API: bounded in time, retried within its budget, its refusals and outages told apart.

import { AppError } from '../../core/errors.js';
import { log } from '../../core/log.js';

/** How one payment provider is called: time per attempt, attempts, back-off. */
export interface UpstreamPolicy {
  /** Names the provider in logs. */
  name: string;
  timeoutMs: number;
  attempts: number;
  retryBaseMs: number;
}

export interface UpstreamCall {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded by the caller (a provider signs or reads exactly these bytes). */
  body?: string;
  /** Our payment id, for the logs only. */
  reference: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The provider could not be reached: the caller's client (or the provider itself) may retry. */
export const providerUnavailable = (message = 'The payment provider is unavailable, try again shortly') =>
  new AppError('ERR_UNAVAILABLE', message, { headers: { 'Retry-After': '30' } });

/** The provider answered something we cannot act on: retrying the same request will not help. */
export const providerRefused = (message: string) => new AppError('ERR_UPSTREAM', message);

/**
 * One provider call with a bounded time: at most `attempts` tries of `timeoutMs` each, with
 * exponential back-off on a 5xx, a network error or a timeout; a 4xx is final. Answers the
 * first reply below 500 with its JSON body (undefined when not JSON). Once the attempts are
 * spent: 503 ERR_UNAVAILABLE with Retry-After, never a 500 (the provider being down is not our
 * fault, and the client may retry).
 */
export async function callUpstream(
  policy: UpstreamPolicy,
  call: UpstreamCall,
): Promise<{ status: number; json: unknown }> {
  let last = 'no attempt';
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    if (attempt > 1) await sleep(policy.retryBaseMs * 2 ** (attempt - 2));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), policy.timeoutMs);
    try {
      const res = await fetch(call.url, {
        method: call.method,
        headers: {
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...call.headers,
        },
        ...(call.body === undefined ? {} : { body: call.body }),
        signal: controller.signal,
      });
      // Read while the timer still runs: a body that never ends is a timeout too.
      const text = await res.text();
      if (res.status >= 500) {
        last = `status ${res.status}`;
        continue;
      }
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, json };
    } catch (error) {
      last = (error as Error).name === 'AbortError' ? 'timeout' : 'network error';
    } finally {
      clearTimeout(timer);
    }
  }
  log.warn('payment provider unreachable', {
    provider: policy.name,
    method: call.method,
    attempts: policy.attempts,
    last,
    reference: call.reference,
  });
  throw providerUnavailable();
}

/** What one call of a gateway's JSON API may add: a body (sent as JSON), fewer or more attempts, an idempotency key. */
export interface ApiCallExtra {
  body?: unknown;
  attempts?: number;
  idempotencyKey?: string;
}

/**
 * A gateway's JSON API behind a bearer key (FedaPay, Wave): `call(method, path, reference)`
 * answers `callUpstream`'s reply for the path under its root, with the key read when first
 * needed and the policy's bounds.
 */
export function bearerJsonApi(options: {
  baseUrl: string;
  apiKey: () => Promise<string>;
  policy: UpstreamPolicy;
}) {
  const root = options.baseUrl.replace(/\/$/, '');
  return async (method: 'GET' | 'POST', path: string, reference: string, extra: ApiCallExtra = {}) =>
    callUpstream(
      { ...options.policy, ...(extra.attempts ? { attempts: extra.attempts } : {}) },
      {
        method,
        url: `${root}${path}`,
        headers: {
          authorization: `Bearer ${await options.apiKey()}`,
          ...(extra.idempotencyKey ? { 'idempotency-key': extra.idempotencyKey } : {}),
        },
        ...(extra.body === undefined ? {} : { body: JSON.stringify(extra.body) }),
        reference,
      },
    );
}
