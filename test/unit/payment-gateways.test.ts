import { afterEach, describe, expect, it, vi } from 'vitest';
import { http } from '../../functions/billing/gateways/http.js';
import { sandbox, sandboxAdapter } from '../../functions/billing/gateways/sandbox.js';
import { signedGateway, timestampedSettings } from '../../functions/billing/gateways/secret.js';

import { resetConfig } from '../../functions/core/config.js';
import { AppError } from '../../functions/core/errors.js';
import { resetSecrets } from '../../functions/core/secrets.js';

const request = {
  reference: 'ref-1',
  amount_fcfa: 300,
  currency: 'XOF' as const,
  provider: 'wave',
  description: 'WiFi Pass Jour',
  notify_url: 'https://api.example/api/v1/payments/notify/http',
  return_url: 'https://api.example/',
};
const ok = () => new Response(JSON.stringify({ payment_url: 'https://pay.example/x' }), { status: 200 });
const status = (s: number) => new Response('{}', { status: s });
/** The http gateway's adapter as a deployment builds it, from its settings and its key. */
const adapter = (timeoutMs = 1000) => {
  vi.stubEnv('AGGREGATOR_BASE_URL', 'https://agg.example/');
  vi.stubEnv('AGGREGATOR_TIMEOUT_MS', String(timeoutMs));
  vi.stubEnv('AGGREGATOR_RETRY_BASE_MS', '1');
  vi.stubEnv('AGGREGATOR_API_KEY', 'k3y');
  resetConfig();
  resetSecrets();
  return http.adapter();
};

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  resetConfig();
  resetSecrets();
});

describe('the http gateway adapter', () => {
  it('posts the payment with the bearer key and returns the payment url', async () => {
    const fetchMock = vi.fn(async () => ok());
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().createPayment(request)).resolves.toEqual({ payment_url: 'https://pay.example/x' });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://agg.example/payments');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer k3y');
    expect(JSON.parse(init.body as string)).toEqual({
      reference: 'ref-1',
      amount_fcfa: 300,
      currency: 'XOF',
      provider: 'wave',
    });
  });

  it('retries a 5xx and succeeds on the third attempt', async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(status(503))
      .mockResolvedValueOnce(status(500))
      .mockResolvedValue(ok());
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().createPayment(request)).resolves.toEqual({ payment_url: 'https://pay.example/x' });
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('gives up after three 5xx with 503 ERR_UNAVAILABLE and a Retry-After, never a 500', async () => {
    const fetchMock = vi.fn(async () => status(502));
    vi.stubGlobal('fetch', fetchMock);
    const error = await adapter()
      .createPayment(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('ERR_UNAVAILABLE');
    expect((error as AppError).headers?.['Retry-After']).toBeDefined();
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('does not retry a 4xx', async () => {
    const fetchMock = vi.fn(async () => status(422));
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().createPayment(request)).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
      status: 502,
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('retries a network error', async () => {
    const fetchMock = vi.fn().mockRejectedValueOnce(new TypeError('fetch failed')).mockResolvedValue(ok());
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().createPayment(request)).resolves.toMatchObject({
      payment_url: expect.any(String),
    });
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('aborts a hung call at the timeout and retries it', async () => {
    // Prepare: the first call never answers; the adapter's timers run on the test's clock.
    const hang = (_url: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () =>
          reject(Object.assign(new Error('aborted'), { name: 'AbortError' })),
        );
      });
    const fetchMock = vi.fn().mockImplementationOnce(hang).mockResolvedValue(ok());
    vi.stubGlobal('fetch', fetchMock);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

    // Act
    const created = adapter(50).createPayment(request);
    await vi.advanceTimersByTimeAsync(49);
    const [, first] = fetchMock.mock.calls[0] as [string, RequestInit];
    const beforeTimeout = { calls: fetchMock.mock.calls.length, aborted: first.signal?.aborted };
    await vi.advanceTimersByTimeAsync(1);
    await vi.runAllTimersAsync();

    // Assess
    await expect(created).resolves.toMatchObject({ payment_url: expect.any(String) });
    expect(beforeTimeout).toEqual({ calls: 1, aborted: false });
    expect(first.signal?.aborted).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});

describe("the http aggregator adapter's status API", () => {
  const state = (body: unknown, s = 200) => new Response(JSON.stringify(body), { status: s });

  it('reads the state of a payment by its reference, with the bearer key', async () => {
    const fetchMock = vi.fn(async () => state({ status: 'completed', amount_fcfa: 300, provider: 'wave' }));
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().paymentState?.({ reference: 'ref/1' })).resolves.toEqual({
      status: 'completed',
      amount_fcfa: 300,
      provider: 'wave',
    });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('https://agg.example/payments/ref%2F1');
    expect(init.method).toBe('GET');
    expect((init.headers as Record<string, string>).authorization).toBe('Bearer k3y');
  });

  it('answers undefined for a reference the aggregator does not know (404), without retrying', async () => {
    const fetchMock = vi.fn(async () => status(404));
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().paymentState?.({ reference: 'ref-1' })).resolves.toBeUndefined();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('retries a 5xx, then reads the state', async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(status(500))
      .mockResolvedValue(state({ status: 'pending', amount_fcfa: 300, provider: 'wave' }));
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().paymentState?.({ reference: 'ref-1' })).resolves.toMatchObject({
      status: 'pending',
    });
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['an unknown status', { status: 'paid', amount_fcfa: 300, provider: 'wave' }],
    ['a missing amount', { status: 'completed', provider: 'wave' }],
    ['an amount as text', { status: 'completed', amount_fcfa: '300', provider: 'wave' }],
  ])('refuses an answer with %s as ERR_UPSTREAM', async (_name, body) => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => state(body)),
    );
    await expect(adapter().paymentState?.({ reference: 'ref-1' })).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
    });
  });

  it('does not retry another 4xx and answers ERR_UPSTREAM', async () => {
    const fetchMock = vi.fn(async () => status(401));
    vi.stubGlobal('fetch', fetchMock);
    await expect(adapter().paymentState?.({ reference: 'ref-1' })).rejects.toMatchObject({
      code: 'ERR_UPSTREAM',
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe('the sandbox gateway', () => {
  it('points at the local sandbox page of the payment', async () => {
    await expect(sandboxAdapter('http://localhost:3000/').createPayment(request)).resolves.toEqual({
      payment_url: 'http://localhost:3000/sandbox/pay/ref-1',
    });
  });

  it('has a status API, and credits a pending delivery as its page decided it (a late one is confirmed)', () => {
    expect(sandboxAdapter('http://localhost:3000').paymentState).toBeTypeOf('function');
    expect(sandbox.confirmsPending).toBe(false);
  });
});

describe('a signed gateway declared with signedGateway', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetSecrets();
  });

  it('names its secrets and settings once, and builds its adapter with their values and the policy', async () => {
    vi.stubEnv('DEMO_API_KEY', 'k-demo');
    resetSecrets();
    const built: unknown[] = [];
    const demo = signedGateway('demo', {
      secrets: { apiKey: 'DEMO_API_KEY', webhookSecret: 'DEMO_WEBHOOK_SECRET' },
      settings: [
        () => ({ DEMO_BASE_URL: 'https://demo.example', DEMO_TOLERANCE_S: 120 }),
        { baseUrl: 'DEMO_BASE_URL', toleranceS: 'DEMO_TOLERANCE_S' },
      ],
      adapter: (options: {
        baseUrl: string;
        toleranceS: number;
        apiKey: () => Promise<string>;
        webhookSecret: () => Promise<string>;
        policy: { name: string };
      }) => {
        built.push(options);
        return sandboxAdapter(options.baseUrl);
      },
    });
    expect(demo).toMatchObject({
      name: 'demo',
      notifies: 'signed',
      secrets: ['DEMO_API_KEY', 'DEMO_WEBHOOK_SECRET'],
      settings: ['DEMO_BASE_URL', 'DEMO_TOLERANCE_S'],
    });
    // Nothing is read until a payment needs the adapter.
    expect(built).toHaveLength(0);
    const adapter = demo.adapter();
    await expect(adapter.createPayment(request)).resolves.toEqual({
      payment_url: 'https://demo.example/sandbox/pay/ref-1',
    });
    const options = built[0] as {
      baseUrl: string;
      toleranceS: number;
      apiKey: () => Promise<string>;
      webhookSecret: () => Promise<string>;
      policy: { name: string };
    };
    expect([options.baseUrl, options.toleranceS, options.policy.name]).toEqual([
      'https://demo.example',
      120,
      'demo',
    ]);
    await expect(options.apiKey()).resolves.toBe('k-demo');
    // A secret the deployment never set makes the gateway unknown (404), not a fault.
    await expect(options.webhookSecret()).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
  });
});

describe("a timestamped gateway's settings", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it('reads <P>_BASE_URL and <P>_TOLERANCE_S, with their defaults, and refuses a tolerance that is not a number', () => {
    const settings = timestampedSettings('DEMO', 'https://api.demo.example');
    expect(settings()).toEqual({ DEMO_BASE_URL: 'https://api.demo.example', DEMO_TOLERANCE_S: 300 });
    vi.stubEnv('DEMO_BASE_URL', 'https://sandbox.demo.example');
    vi.stubEnv('DEMO_TOLERANCE_S', '120');
    resetConfig();
    expect(settings()).toEqual({ DEMO_BASE_URL: 'https://sandbox.demo.example', DEMO_TOLERANCE_S: 120 });
    vi.stubEnv('DEMO_TOLERANCE_S', 'soon');
    resetConfig();
    expect(() => settings()).toThrow(/Invalid configuration: DEMO_TOLERANCE_S/);
  });
});
