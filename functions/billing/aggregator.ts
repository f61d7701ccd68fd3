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

export interface Aggregator {
  createPayment(req: PaymentRequest): Promise<{ payment_url: string }>;
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

/**
 * A real aggregator over HTTPS: POST `<base>/payments` with a bearer key. Up to `attempts`
 * tries with exponential back-off on 5xx, network errors and timeouts; a 4xx is final. Every
 * failure becomes 502 ERR_UPSTREAM (no upstream detail leaks to the client).
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
  return {
    async createPayment(req) {
      const key = await options.apiKey();
      let last = 'no attempt';
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) await sleep(base * 2 ** (attempt - 2));
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), options.timeoutMs);
        try {
          const res = await fetch(`${options.baseUrl.replace(/\/$/, '')}/payments`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(req),
            signal: controller.signal,
          });
          if (res.status >= 500) {
            last = `status ${res.status}`;
            continue;
          }
          if (!res.ok) {
            log.warn('aggregator refused the payment', { status: res.status, reference: req.reference });
            throw new AppError('ERR_UPSTREAM', 'The payment provider refused the request');
          }
          const body = (await res.json()) as { payment_url?: unknown };
          if (typeof body.payment_url !== 'string') throw new AppError('ERR_UPSTREAM', 'Bad provider answer');
          return { payment_url: body.payment_url };
        } catch (error) {
          if (error instanceof AppError) throw error;
          last = (error as Error).name === 'AbortError' ? 'timeout' : 'network error';
        } finally {
          clearTimeout(timer);
        }
      }
      log.warn('aggregator unreachable', { attempts, last, reference: req.reference });
      throw new AppError('ERR_UPSTREAM', 'The payment provider is unavailable, try again shortly');
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
