import { config } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { log } from '../core/log.js';
import { getSecret } from '../core/secrets.js';
import { billingSettings } from './settings.js';

/** What the payment aggregator is asked to do: open a payment and give the page to pay on. */
export interface PaymentRequest {
  reference: string;
  amount_fcfa: number;
  provider: string;
  callback_url?: string;
}

/** The aggregator's own view of a payment, from its status API. */
export interface PaymentState {
  status: 'pending' | 'completed' | 'failed';
  amount_fcfa: number;
  provider: string;
}

export interface Aggregator {
  createPayment(req: PaymentRequest): Promise<{ payment_url: string }>;
  /**
   * The aggregator's record of a payment (undefined: it does not know the reference). Absent
   * from an adapter that has no status API to ask (the sandbox is the local server itself).
   */
  paymentState?(reference: string): Promise<PaymentState | undefined>;
}

/** Local mode: the local server's sandbox pages play the aggregator (bin/local/sandbox.ts). */
export function sandboxAggregator(baseUrl: string): Aggregator {
  return {
    createPayment: async (req) => ({
      payment_url: `${baseUrl.replace(/\/$/, '')}/sandbox/pay/${req.reference}`,
    }),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const STATES = new Set(['pending', 'completed', 'failed']);

/**
 * A real aggregator over HTTPS with a bearer key: `POST <base>/payments` opens a payment,
 * `GET <base>/payments/<reference>` reads its state. Up to `attempts` tries with exponential
 * back-off on 5xx, network errors and timeouts; a 4xx is final. Every failure becomes 502
 * ERR_UPSTREAM (no upstream detail leaks to the client).
 */
export function httpAggregator(options: {
  baseUrl: string;
  timeoutMs: number;
  apiKey: () => Promise<string>;
  attempts?: number;
  retryBaseMs?: number;
}): Aggregator {
  const attempts = options.attempts ?? 3;
  const base = options.retryBaseMs ?? 200;
  const root = options.baseUrl.replace(/\/$/, '');

  /** The first answer below 500 with its JSON body, or ERR_UPSTREAM once the attempts are spent. */
  async function send(
    method: 'GET' | 'POST',
    path: string,
    reference: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown }> {
    const key = await options.apiKey();
    let last = 'no attempt';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(base * 2 ** (attempt - 2));
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), options.timeoutMs);
      try {
        const res = await fetch(`${root}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: controller.signal,
        });
        if (res.status >= 500) {
          last = `status ${res.status}`;
          continue;
        }
        // Read while the timer still runs: a body that never ends is a timeout too.
        const json = res.ok ? await res.json().catch(() => undefined) : undefined;
        return { status: res.status, json };
      } catch (error) {
        last = (error as Error).name === 'AbortError' ? 'timeout' : 'network error';
      } finally {
        clearTimeout(timer);
      }
    }
    log.warn('aggregator unreachable', { method, attempts, last, reference });
    throw new AppError('ERR_UPSTREAM', 'The payment provider is unavailable, try again shortly');
  }

  return {
    async createPayment(req) {
      const res = await send('POST', '/payments', req.reference, req);
      if (res.status >= 400) {
        log.warn('aggregator refused the payment', { status: res.status, reference: req.reference });
        throw new AppError('ERR_UPSTREAM', 'The payment provider refused the request');
      }
      const url = (res.json as { payment_url?: unknown } | undefined)?.payment_url;
      if (typeof url !== 'string') throw new AppError('ERR_UPSTREAM', 'Bad provider answer');
      return { payment_url: url };
    },

    async paymentState(reference) {
      const res = await send('GET', `/payments/${encodeURIComponent(reference)}`, reference);
      if (res.status === 404) return undefined;
      if (res.status >= 400) {
        log.warn('aggregator refused the status request', { status: res.status, reference });
        throw new AppError('ERR_UPSTREAM', 'The payment provider refused the status request');
      }
      const s = res.json as Partial<Record<keyof PaymentState, unknown>> | undefined;
      if (
        typeof s?.status !== 'string' ||
        !STATES.has(s.status) ||
        typeof s.amount_fcfa !== 'number' ||
        typeof s.provider !== 'string'
      ) {
        throw new AppError('ERR_UPSTREAM', 'Bad provider answer');
      }
      return { status: s.status as PaymentState['status'], amount_fcfa: s.amount_fcfa, provider: s.provider };
    },
  };
}

/** The adapter the configuration names. */
export function aggregator(): Aggregator {
  const c = config();
  if (c.AGGREGATOR_MODE === 'sandbox') return sandboxAggregator(c.PUBLIC_BASE_URL);
  return httpAggregator({
    baseUrl: c.AGGREGATOR_BASE_URL,
    timeoutMs: c.AGGREGATOR_TIMEOUT_MS,
    apiKey: () => getSecret('AGGREGATOR_API_KEY'),
    retryBaseMs: billingSettings().AGGREGATOR_RETRY_BASE_MS,
  });
}
