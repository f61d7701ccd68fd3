import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local fakes of the payment providers, speaking their documented wire formats (the shapes
 * below are the examples of CinetPay's and FedaPay's documentation and SDK fixtures): the
 * adapters are tested against HTTP, not against mocks of themselves. Each fake can be made to
 * fail (5xx) or hang, and records the calls it got.
 */

/**
 * The fields of a CinetPay notification its x-token signs, concatenated in this order (CinetPay's
 * documentation), a missing one as empty.
 */
export const CINETPAY_SIGNED_FIELDS = [
  'cpm_site_id',
  'cpm_trans_id',
  'cpm_trans_date',
  'cpm_amount',
  'cpm_currency',
  'signature',
  'payment_method',
  'cel_phone_num',
  'cpm_phone_prefixe',
  'cpm_language',
  'cpm_version',
  'cpm_payment_config',
  'cpm_page_action',
  'cpm_custom',
  'cpm_designation',
  'cpm_error_message',
] as const;

/** CinetPay's x-token of a notification: the lower-case hex HMAC-SHA256 PHP's hash_hmac answers. */
export const cinetpayToken = (form: URLSearchParams, key: string) =>
  createHmac('sha256', key)
    .update(CINETPAY_SIGNED_FIELDS.map((f) => form.get(f) ?? '').join(''))
    .digest('hex');

type Handler = (req: IncomingMessage, body: string, url: URL) => { status: number; body: unknown } | 'hang';

interface Running {
  url: string;
  calls: { method: string; path: string; body: string }[];
  /** The next `n` requests answer 503 (Infinity: until `up()`). */
  down: (n?: number) => void;
  /** The next `n` requests never answer. */
  hang: (n?: number) => void;
  up: () => void;
  close: () => Promise<void>;
}

async function serve(handler: Handler): Promise<Running> {
  const calls: Running['calls'] = [];
  let failing = 0;
  let hanging = 0;
  const hung: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake');
      calls.push({ method: req.method ?? 'GET', path: url.pathname, body });
      if (hanging > 0) {
        hanging -= 1;
        hung.push(res);
        return;
      }
      if (failing > 0) {
        failing -= 1;
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html>Service Unavailable</html>');
        return;
      }
      const out = handler(req, body, url);
      if (out === 'hang') {
        hung.push(res);
        return;
      }
      res.writeHead(out.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    down: (n = Number.POSITIVE_INFINITY) => {
      failing = n;
    },
    hang: (n = 1) => {
      hanging = n;
    },
    up: () => {
      failing = 0;
      hanging = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hung) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------- CinetPay (api-checkout v2)

export interface CinetPayTransaction {
  transaction_id: string;
  amount: number;
  currency: string;
  description: string;
  notify_url: string;
  return_url: string;
  payment_token: string;
  /** data.status of /v2/payment/check. */
  status: string;
  /** What the buyer actually paid (differs only when a test says so). */
  paid_amount?: number;
  paid_currency?: string;
}

export interface FakeCinetPay extends Running {
  apiKey: string;
  siteId: string;
  secretKey: string;
  transactions: Map<string, CinetPayTransaction>;
  /** The buyer pays (the check then answers ACCEPTED, for `amount` when given). */
  pay: (id: string, paid?: { amount?: number; currency?: string }) => void;
  refuse: (id: string) => void;
  /** The form CinetPay posts to notify_url for a transaction, as documented. */
  notificationForm: (id: string, overrides?: Record<string, string>) => URLSearchParams;
  /** Its x-token: HMAC-SHA256(secret key, the 16 fields concatenated in order). */
  sign: (form: URLSearchParams, key?: string) => string;
}

export async function fakeCinetPay(): Promise<FakeCinetPay> {
  const apiKey = `cp-apikey-${randomBytes(6).toString('hex')}`;
  const siteId = String(100000 + Math.floor(Math.random() * 800000));
  const secretKey = `cp-secret-${randomBytes(12).toString('hex')}`;
  const transactions = new Map<string, CinetPayTransaction>();
  let baseUrl = '';
  const running = await serve((_req, raw, url) => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return { status: 400, body: { code: '718', message: 'JSON_PARSE_ERROR' } };
    }
    if (body.apikey !== apiKey || String(body.site_id) !== siteId) {
      return { status: 200, body: { code: '609', message: 'AUTH_NOT_FOUND', api_response_id: '1' } };
    }
    if (url.pathname === '/v2/payment') {
      const id = String(body.transaction_id);
      if (transactions.has(id)) {
        return { status: 200, body: { code: '805', message: 'CLIENT_TRANSACTION_ID_EXIST' } };
      }
      const token = randomBytes(16).toString('hex');
      transactions.set(id, {
        transaction_id: id,
        amount: Number(body.amount),
        currency: String(body.currency),
        description: String(body.description),
        notify_url: String(body.notify_url),
        return_url: String(body.return_url),
        payment_token: token,
        status: 'CREATED',
      });
      return {
        status: 200,
        body: {
          code: '201',
          message: 'CREATED',
          description: 'Transaction created with success',
          data: { payment_token: token, payment_url: `${baseUrl}/payment/${token}` },
          api_response_id: `${Date.now() / 1000}`,
        },
      };
    }
    if (url.pathname === '/v2/payment/check') {
      const t = transactions.get(String(body.transaction_id));
      if (!t) return { status: 200, body: { code: '627', message: 'TRANSACTION_NOT_FOUND' } };
      const accepted = t.status === 'ACCEPTED';
      return {
        status: 200,
        body: {
          code: accepted ? '00' : t.status === 'REFUSED' ? '627' : '662',
          message: accepted
            ? 'SUCCES'
            : t.status === 'REFUSED'
              ? 'TRANSACTION_CANCEL'
              : 'WAITING_CUSTOMER_PAYMENT',
          data: {
            amount: String(t.paid_amount ?? t.amount),
            currency: t.paid_currency ?? t.currency,
            status: t.status,
            payment_method: 'OM',
            description: t.description,
            metadata: null,
            operator_id: accepted ? 'MP220915.2257.A76307' : null,
            payment_date: accepted ? '2022-09-15 22:57:15' : ' ',
            fund_availability_date: '2022-09-17 00:00:00',
          },
          api_response_id: `${Date.now() / 1000}`,
        },
      };
    }
    return { status: 404, body: { code: '404', message: 'NOT_FOUND' } };
  });
  baseUrl = running.url;
  const sign = (form: URLSearchParams, key = secretKey) => cinetpayToken(form, key);
  return {
    ...running,
    apiKey,
    siteId,
    secretKey,
    transactions,
    pay: (id, paid = {}) => {
      const t = transactions.get(id);
      if (!t) throw new Error(`no CinetPay transaction ${id}`);
      Object.assign(t, {
        status: 'ACCEPTED',
        ...(paid.amount !== undefined ? { paid_amount: paid.amount } : {}),
        ...(paid.currency ? { paid_currency: paid.currency } : {}),
      });
    },
    refuse: (id) => {
      const t = transactions.get(id);
      if (t) t.status = 'REFUSED';
    },
    notificationForm: (id, overrides = {}) => {
      const t = transactions.get(id);
      if (!t) throw new Error(`no CinetPay transaction ${id}`);
      return new URLSearchParams({
        cpm_site_id: siteId,
        cpm_trans_id: id,
        cpm_trans_date: '2024-05-02 10:15:00',
        cpm_amount: String(t.amount),
        cpm_currency: t.currency,
        signature: randomBytes(20).toString('hex'),
        payment_method: 'OM',
        cel_phone_num: '0707070707',
        cpm_phone_prefixe: '225',
        cpm_language: 'fr',
        cpm_version: 'V4',
        cpm_payment_config: 'Single',
        cpm_page_action: 'Payment',
        cpm_custom: '',
        cpm_designation: t.description,
        cpm_error_message: t.status === 'ACCEPTED' ? 'SUCCES' : '',
        ...overrides,
      });
    },
    sign,
  };
}

// ---------------------------------------------------------------- FedaPay (v1)

export interface FedaPayTransaction {
  id: number;
  klass: 'v1/transaction';
  transaction_key: string;
  reference: string;
  amount: number;
  description: string;
  callback_url: string;
  status: string;
  customer_id: number | null;
  currency_id: number;
  currency_iso: string;
  mode: string | null;
  custom_metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  approved_at: string | null;
  /** What the buyer actually paid, as FedaPay's API reports it (differs only when a test says so). */
  paid_amount?: number;
  paid_currency?: string;
}

export interface FakeFedaPay extends Running {
  apiKey: string;
  webhookSecret: string;
  transactions: Map<number, FedaPayTransaction>;
  /** The FedaPay transaction opened for one of our payments. */
  transactionOf: (paymentId: string) => FedaPayTransaction;
  approve: (paymentId: string, paid?: { amount?: number; currency?: string }) => void;
  decline: (paymentId: string) => void;
  /** A webhook event, as FedaPay posts it: `{id, name, entity}`. */
  event: (paymentId: string, name: string, overrides?: Partial<FedaPayTransaction>) => string;
  /** X-FEDAPAY-SIGNATURE for a raw body: `t=<unix>,s=<HMAC-SHA256(secret, t.body)>`. */
  signature: (raw: string, options?: { t?: number; secret?: string; extra?: string[] }) => string;
}

const CURRENCY_IDS: Record<string, number> = { XOF: 1, XAF: 2 };

export async function fakeFedaPay(): Promise<FakeFedaPay> {
  const apiKey = `sk_sandbox_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `wh_sandbox_${randomBytes(12).toString('hex')}`;
  const transactions = new Map<number, FedaPayTransaction>();
  let nextId = 100_000 + Math.floor(Math.random() * 1000);
  let eventId = 1;
  const view = (t: FedaPayTransaction, withCurrency: boolean) => {
    const { currency_iso, paid_amount, paid_currency, ...rest } = t;
    return withCurrency ? { ...rest, currency: { klass: 'v1/currency', iso: currency_iso } } : rest;
  };
  /** The transaction as the API reports it: what was paid. */
  const asPaid = (t: FedaPayTransaction): FedaPayTransaction => ({
    ...t,
    amount: t.paid_amount ?? t.amount,
    currency_iso: t.paid_currency ?? t.currency_iso,
  });
  const running = await serve((req, raw, url) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return { status: 401, body: { message: 'Unauthenticated.' } };
    }
    if (req.method === 'POST' && url.pathname === '/v1/transactions') {
      const body = JSON.parse(raw) as {
        description: string;
        amount: number;
        currency: { iso: string };
        callback_url: string;
        custom_metadata: Record<string, unknown>;
      };
      const now = new Date().toISOString();
      const t: FedaPayTransaction = {
        id: nextId++,
        klass: 'v1/transaction',
        transaction_key: randomBytes(4).toString('hex').toUpperCase(),
        reference: `trx_${randomBytes(3).toString('hex')}_${Date.now()}`,
        amount: body.amount,
        description: body.description,
        callback_url: body.callback_url,
        status: 'pending',
        customer_id: null,
        currency_id: CURRENCY_IDS[body.currency.iso] ?? 1,
        currency_iso: body.currency.iso,
        mode: null,
        custom_metadata: body.custom_metadata,
        created_at: now,
        updated_at: now,
        approved_at: null,
      };
      transactions.set(t.id, t);
      return { status: 200, body: { 'v1/transaction': view(t, false) } };
    }
    const token = /^\/v1\/transactions\/(\d+)\/token$/.exec(url.pathname);
    if (req.method === 'POST' && token) {
      const t = transactions.get(Number(token[1]));
      if (!t) return { status: 404, body: { message: 'Transaction not found' } };
      const value = randomBytes(12).toString('hex');
      return { status: 200, body: { token: value, url: `https://process.fedapay.com/${value}` } };
    }
    const one = /^\/v1\/transactions\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const t = transactions.get(Number(one[1]));
      if (!t) return { status: 404, body: { message: 'Transaction not found' } };
      return {
        status: 200,
        body: {
          'v1/transaction': view(asPaid(t), url.searchParams.get('include')?.includes('currency') ?? false),
        },
      };
    }
    return { status: 404, body: { message: 'Not found' } };
  });
  const transactionOf = (paymentId: string) => {
    const t = [...transactions.values()].find((x) => x.custom_metadata.payment_id === paymentId);
    if (!t) throw new Error(`no FedaPay transaction for ${paymentId}`);
    return t;
  };
  return {
    ...running,
    apiKey,
    webhookSecret,
    transactions,
    transactionOf,
    approve: (paymentId, paid = {}) => {
      const t = transactionOf(paymentId);
      Object.assign(t, {
        status: 'approved',
        approved_at: new Date().toISOString(),
        ...(paid.amount !== undefined ? { paid_amount: paid.amount } : {}),
        ...(paid.currency ? { paid_currency: paid.currency } : {}),
      });
    },
    decline: (paymentId) => {
      transactionOf(paymentId).status = 'declined';
    },
    event: (paymentId, name, overrides = {}) => {
      const t = { ...transactionOf(paymentId), ...overrides };
      return JSON.stringify({
        id: eventId++,
        klass: 'v1/event',
        name,
        object: 'transaction',
        object_id: t.id,
        entity: view(t, true),
        created_at: new Date().toISOString(),
      });
    },
    signature: (raw, options = {}) => {
      const t = options.t ?? Math.floor(Date.now() / 1000);
      const s = createHmac('sha256', options.secret ?? webhookSecret)
        .update(`${t}.${raw}`)
        .digest('hex');
      return [`t=${t}`, ...(options.extra ?? []).map((x) => `s=${x}`), `s=${s}`].join(',');
    },
  };
}

// ---------------------------------------------------------------- Wave (Checkout API v1)

export interface WaveSession {
  id: string;
  amount: string;
  checkout_status: 'open' | 'complete' | 'expired';
  client_reference: string | null;
  currency: string;
  error_url: string;
  success_url: string;
  business_name: string;
  payment_status: 'processing' | 'cancelled' | 'succeeded' | 'refunded';
  transaction_id: string | null;
  wave_launch_url: string;
  when_created: string;
  when_expires: string;
  when_completed: string | null;
  /** What the buyer actually paid, as the API reports it (differs only when a test says so). */
  paid_amount?: string;
  paid_currency?: string;
}

export interface FakeWave extends Running {
  apiKey: string;
  webhookSecret: string;
  sessions: Map<string, WaveSession>;
  /** The checkout session opened for one of our payments (its client_reference). */
  sessionOf: (paymentId: string) => WaveSession;
  /** The buyer pays in the Wave app (what opening `wave_launch_url` and confirming does). */
  complete: (paymentId: string, paid?: { amount?: number; currency?: string }) => void;
  cancel: (paymentId: string) => void;
  /** A webhook event, as Wave posts it: `{id, type, data: <checkout session>}`. */
  event: (paymentId: string, type: string, overrides?: Partial<WaveSession>) => string;
  /** Wave-Signature for a raw body: `t=<unix>,v1=<hex HMAC-SHA256(secret, t + body)>`. */
  signature: (raw: string, options?: { t?: number; secret?: string; extra?: string[] }) => string;
}

/**
 * Wave's Checkout API as its documentation describes it: Bearer API key, sessions opened with
 * `amount` (a decimal string), `currency`, `success_url`, `error_url`, `client_reference` and an
 * optional `Idempotency-Key` (the same key answers the same session); amounts answered as
 * strings; `POST .../refund` on a succeeded session. `GET <wave_launch_url>` plays the buyer
 * paying in the app.
 */
export async function fakeWave(): Promise<FakeWave> {
  const apiKey = `wave_sn_prod_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `wave_sn_WHS_${randomBytes(16).toString('hex')}`;
  const sessions = new Map<string, WaveSession>();
  const byIdempotencyKey = new Map<string, string>();
  let eventNo = 1;
  let baseUrl = '';
  const view = (s: WaveSession) => {
    const { paid_amount, paid_currency, ...rest } = s;
    return { ...rest, amount: paid_amount ?? s.amount, currency: paid_currency ?? s.currency };
  };
  const error = (status: number, code: string, message: string) => ({ status, body: { code, message } });
  const sessionOf = (paymentId: string) => {
    const s = [...sessions.values()].find((x) => x.client_reference === paymentId);
    if (!s) throw new Error(`no Wave checkout session for ${paymentId}`);
    return s;
  };
  const complete = (s: WaveSession, paid: { amount?: number; currency?: string } = {}) => {
    Object.assign(s, {
      checkout_status: 'complete',
      payment_status: 'succeeded',
      transaction_id: `TCN${randomBytes(5).toString('hex').toUpperCase()}`,
      when_completed: new Date().toISOString(),
      ...(paid.amount !== undefined ? { paid_amount: String(paid.amount) } : {}),
      ...(paid.currency ? { paid_currency: paid.currency } : {}),
    });
  };
  const running = await serve((req, raw, url) => {
    const launch = /^\/c\/(cos-[0-9a-z]+)$/.exec(url.pathname);
    if (req.method === 'GET' && launch) {
      const s = sessions.get(launch[1] as string);
      if (!s) return error(404, 'not-found', 'Checkout session not found');
      if (s.checkout_status === 'open') complete(s);
      return { status: 200, body: { paid: s.payment_status === 'succeeded' } };
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return error(401, 'invalid-auth', 'Invalid or missing API key');
    }
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && byIdempotencyKey.has(key)) {
        return { status: 200, body: view(sessions.get(byIdempotencyKey.get(key) as string) as WaveSession) };
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return error(400, 'request-validation-error', 'Body is not JSON');
      }
      if (typeof body.amount !== 'string' || !/^\d+$/.test(body.amount)) {
        return error(400, 'request-validation-error', 'amount must be a string of a whole number');
      }
      // Wave's merchants in Senegal and Côte d'Ivoire are paid in XOF.
      if (body.currency !== 'XOF') return error(400, 'request-validation-error', 'currency not supported');
      if (typeof body.success_url !== 'string' || typeof body.error_url !== 'string') {
        return error(400, 'request-validation-error', 'success_url and error_url are required');
      }
      const id = `cos-${randomBytes(9).toString('hex')}`;
      const now = Date.now();
      const s: WaveSession = {
        id,
        amount: body.amount,
        checkout_status: 'open',
        client_reference: typeof body.client_reference === 'string' ? body.client_reference : null,
        currency: body.currency,
        error_url: body.error_url,
        success_url: body.success_url,
        business_name: 'Chez Awa WiFi',
        payment_status: 'processing',
        transaction_id: null,
        wave_launch_url: `${baseUrl}/c/${id}`,
        when_created: new Date(now).toISOString(),
        when_expires: new Date(now + 30 * 60_000).toISOString(),
        when_completed: null,
      };
      sessions.set(id, s);
      if (typeof key === 'string') byIdempotencyKey.set(key, id);
      return { status: 200, body: view(s) };
    }
    const refund = /^\/v1\/checkout\/sessions\/([^/]+)\/refund$/.exec(url.pathname);
    if (req.method === 'POST' && refund) {
      const s = sessions.get(decodeURIComponent(refund[1] as string));
      if (!s) return error(404, 'not-found', 'Checkout session not found');
      if (s.payment_status === 'refunded') return { status: 200, body: {} };
      if (s.payment_status !== 'succeeded') return error(400, 'checkout-refund-failed', 'Not paid');
      s.payment_status = 'refunded';
      return { status: 200, body: {} };
    }
    const one = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const s = sessions.get(decodeURIComponent(one[1] as string));
      if (!s) return error(404, 'not-found', 'Checkout session not found');
      return { status: 200, body: view(s) };
    }
    return error(404, 'not-found', 'Not found');
  });
  baseUrl = running.url;
  return {
    ...running,
    apiKey,
    webhookSecret,
    sessions,
    sessionOf,
    complete: (paymentId, paid) => complete(sessionOf(paymentId), paid),
    cancel: (paymentId) => {
      Object.assign(sessionOf(paymentId), { checkout_status: 'expired', payment_status: 'cancelled' });
    },
    event: (paymentId, type, overrides = {}) =>
      JSON.stringify({
        id: `AE_${(eventNo++).toString().padStart(6, '0')}${randomBytes(3).toString('hex')}`,
        type,
        // What the event says; the API answers what was paid (they differ only when a test says so).
        data: (({ paid_amount, paid_currency, ...said }) => ({ ...said, ...overrides }))(
          sessionOf(paymentId),
        ),
      }),
    signature: (raw, options = {}) => {
      const t = options.t ?? Math.floor(Date.now() / 1000);
      const v1 = createHmac('sha256', options.secret ?? webhookSecret)
        .update(`${t}${raw}`)
        .digest('hex');
      return [`t=${t}`, ...(options.extra ?? []).map((x) => `v1=${x}`), `v1=${v1}`].join(',');
    },
  };
}
