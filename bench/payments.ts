import { randomUUID } from 'node:crypto';
import { SEED_FORFAITS } from '../functions/billing/catalogue.js';
import { initiatePayment } from '../functions/billing/payments/initiate.js';
import { resetConfig } from '../functions/core/config.js';
import { resetSecrets } from '../functions/core/secrets.js';
import { Nas } from '../functions/store/nas.js';
import { recordReseller } from '../functions/store/resellers.js';
import type { DdbProbe } from '../test/support/ddb-instrument.js';
import { fakeCinetPay, fakeFedaPay } from '../test/support/fake-providers.js';

/**
 * A provider notification end to end, against the local fake of each provider: the signature
 * check on the raw body, the read of the payment and its delivery record, the provider's status
 * API (a local HTTP call), and the completion transaction. The API server must run in this
 * process (bench/run.ts starts it so): the provider settings are set here for the time of the run.
 */
export interface PaymentFigure {
  name: string;
  requests: number;
  p50: number;
  p99: number;
  /** DynamoDB commands per notification. */
  ddb_calls_per_request: number;
  /** Calls to the provider's status API per notification. */
  provider_calls_per_request: number;
  /** Notifications answered 200 (all of them, when nothing is wrong). */
  ok: number;
  lines: string[];
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

interface Provider {
  name: 'cinetpay' | 'fedapay';
  env: Record<string, string>;
  pay: (paymentId: string) => void;
  notification: (paymentId: string) => { body: string; headers: Record<string, string> };
  statusCalls: () => number;
  close: () => Promise<void>;
}

async function providers(): Promise<Provider[]> {
  const cp = await fakeCinetPay();
  const fp = await fakeFedaPay();
  return [
    {
      name: 'cinetpay',
      env: {
        CINETPAY_BASE_URL: cp.url,
        CINETPAY_SITE_ID: cp.siteId,
        CINETPAY_API_KEY: cp.apiKey,
        CINETPAY_SECRET_KEY: cp.secretKey,
      },
      pay: (id) => cp.pay(id),
      notification: (id) => {
        const form = cp.notificationForm(id);
        return {
          body: form.toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-token': cp.sign(form) },
        };
      },
      statusCalls: () => cp.calls.filter((c) => c.path === '/v2/payment/check').length,
      close: () => cp.close(),
    },
    {
      name: 'fedapay',
      env: { FEDAPAY_BASE_URL: fp.url, FEDAPAY_API_KEY: fp.apiKey, FEDAPAY_WEBHOOK_SECRET: fp.webhookSecret },
      pay: (id) => fp.approve(id),
      notification: (id) => {
        const raw = fp.event(id, 'transaction.approved', { status: 'approved' });
        return {
          body: raw,
          headers: { 'content-type': 'application/json', 'x-fedapay-signature': fp.signature(raw) },
        };
      },
      statusCalls: () => fp.calls.filter((c) => c.method === 'GET').length,
      close: () => fp.close(),
    },
  ];
}

/**
 * For each real adapter: `total` paid payments, each notified once (sequentially, so that the
 * latency is the request's own): p50/p99 of the notification and its DynamoDB and provider calls.
 */
export async function paymentFigures(
  serverUrl: string,
  probe: DdbProbe,
  total = 200,
): Promise<PaymentFigure[]> {
  const saved = { ...process.env };
  const out: PaymentFigure[] = [];
  const all = await providers();
  try {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Bench Payments', country: 'CI' });
    const nasId = `access_bench_pay_${randomUUID().slice(0, 6)}`;
    await Nas.put({
      nas_id: nasId,
      reseller_id: resellerId,
      reseller_name: 'Bench Payments',
      vlan_id: 10,
      kind: 'vlan',
    });
    const forfaitId = (SEED_FORFAITS[2] as { id: string }).id;
    for (const provider of all) {
      Object.assign(process.env, { PAYMENT_GATEWAY: provider.name, ...provider.env });
      resetConfig();
      resetSecrets();
      const ids: string[] = [];
      for (let i = 0; i < total; i++) {
        const { transaction_id } = await initiatePayment({
          subscriberId: randomUUID(),
          forfaitId,
          provider: 'orange_money',
          nasId,
        });
        provider.pay(transaction_id);
        ids.push(transaction_id);
      }
      const latencies: number[] = [];
      let ok = 0;
      const statusBefore = provider.statusCalls();
      probe.reset();
      for (const id of ids) {
        const n = provider.notification(id);
        const t0 = performance.now();
        const res = await fetch(`${serverUrl}/api/v1/payments/notify/${provider.name}`, {
          method: 'POST',
          headers: n.headers,
          body: n.body,
        });
        await res.text();
        latencies.push(performance.now() - t0);
        if (res.status === 200) ok += 1;
      }
      latencies.sort((a, b) => a - b);
      const figure = {
        name: `${provider.name} notification (signature, status check, completion)`,
        requests: total,
        p50: Math.round(percentile(latencies, 50) * 10) / 10,
        p99: Math.round(percentile(latencies, 99) * 10) / 10,
        ddb_calls_per_request: Math.round((probe.calls.length / total) * 100) / 100,
        provider_calls_per_request: Math.round(((provider.statusCalls() - statusBefore) / total) * 100) / 100,
        ok,
      };
      out.push({
        ...figure,
        lines: [
          `${figure.name}: ${total} notifications, p50 ${figure.p50} ms, p99 ${figure.p99} ms, ` +
            `${figure.ddb_calls_per_request} DynamoDB and ${figure.provider_calls_per_request} provider calls each, ` +
            `${ok} answered 200 (local fake provider, DynamoDB Local).`,
        ],
      });
    }
  } finally {
    for (const p of all) await p.close();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetConfig();
    resetSecrets();
  }
  return out;
}
