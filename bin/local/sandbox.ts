// The local sandbox payment aggregator's pages: a payment decided by hand, its webhook sent.

import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sandboxAdapter } from '../../functions/billing/gateways/sandbox.js';
import { getSecret } from '../../functions/core/secrets.js';
import { getPayment } from '../../functions/store/payments.js';
import { recordSandboxPayment } from '../../functions/store/sandbox-payments.js';
import type { LocalPage } from './local-page.js';

/**
 * The sandbox payment aggregator (local mode only): the page a payment_url points at, with
 * two buttons that make the aggregator's decision, record it in the sandbox's own books (what
 * its status API answers: functions/billing/gateways/sandbox.ts) and deliver it to the REAL
 * webhook over HTTP, with the shared secret, exactly as the aggregator would; then, for a
 * payment made from a hotspot's portal, back to that portal with `?payment=<id>`. Paying a
 * payment that was declined or expired is a late completion: the webhook asks the status API,
 * which confirms it, and the payment is credited as production credits one.
 */
const PREFIX = '/sandbox/pay/';
/** The status API, as JSON: `GET /sandbox/api/payments/<id>` (404 when the page decided nothing). */
const API = '/sandbox/api/payments/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

function html(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(
    `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  );
}

async function deliver(id: string, status: 'completed' | 'failed', amount: number, provider: string) {
  const base = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
  const res = await fetch(`${base}/api/v1/payments/webhook`, {
    method: 'POST',
    headers: { 'x-provider-secret': await getSecret('WEBHOOK_SECRET'), 'content-type': 'application/json' },
    body: JSON.stringify({
      event_id: randomUUID(),
      transaction_id: id,
      status,
      amount_fcfa: amount,
      provider,
    }),
  });
  return { status: res.status, text: await res.text() };
}

export function sandboxPages(): LocalPage[] {
  return [
    {
      method: 'GET',
      path: API,
      handle: async (_req, res, _body, url) => {
        const id = url.pathname.slice(API.length);
        const state = UUID.test(id) ? await sandboxAdapter().paymentState?.({ reference: id }) : undefined;
        res.writeHead(state ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(
          JSON.stringify(
            state ?? {
              error: { code: 'ERR_NOT_FOUND', message: 'The sandbox decided nothing for this payment' },
            },
          ),
        );
      },
    },
    {
      method: 'GET',
      path: PREFIX,
      handle: async (_req, res, _body, url) => {
        const id = url.pathname.slice(PREFIX.length);
        const p = UUID.test(id) ? await getPayment(id) : undefined;
        if (!p) return html(res, 404, 'Paiement introuvable', '<p>Unknown payment.</p>');
        html(
          res,
          200,
          'Sandbox aggregator',
          `<p>Payment <code>${escapeHtml(p.id)}</code>: <strong>${p.amount_fcfa} FCFA (${p.currency})</strong> via ` +
            `<strong>${escapeHtml(p.provider)}</strong> for <strong>${escapeHtml(p.forfait_name)}</strong> ` +
            `(status: ${escapeHtml(p.status)}).</p>` +
            `<form method="post" action="${PREFIX}${p.id}/complete"><button>Pay (complete)</button></form>` +
            `<form method="post" action="${PREFIX}${p.id}/fail"><button>Decline (fail)</button></form>`,
        );
      },
    },
    {
      method: 'POST',
      path: PREFIX,
      handle: async (_req, res, _body, url) => {
        const [id = '', action = ''] = url.pathname.slice(PREFIX.length).split('/');
        const p = UUID.test(id) ? await getPayment(id) : undefined;
        if (!p || (action !== 'complete' && action !== 'fail')) {
          return html(res, 404, 'Paiement introuvable', '<p>Unknown payment or action.</p>');
        }
        const status = action === 'complete' ? 'completed' : 'failed';
        await recordSandboxPayment({
          reference: p.id,
          status,
          amount_fcfa: p.amount_fcfa,
          currency: p.currency,
          provider: p.provider,
          decided_at: new Date().toISOString(),
        });
        const out = await deliver(p.id, status, p.amount_fcfa, p.provider);
        // Bought from a hotspot's portal: back to it, as a real aggregator's return address does.
        if (p.nas_id && out.status < 300) {
          res.writeHead(303, {
            location: `/portal/${encodeURIComponent(p.nas_id)}?payment=${encodeURIComponent(p.id)}`,
            'cache-control': 'no-store',
          });
          res.end();
          return;
        }
        html(
          res,
          200,
          'Sandbox aggregator: delivered',
          `<p>Webhook answered <strong>${out.status}</strong>: <code>${escapeHtml(out.text)}</code></p>` +
            `<p><a href="${PREFIX}${p.id}">Back to the payment</a></p>`,
        );
      },
    },
  ];
}
