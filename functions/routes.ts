// THE route table: every route's method, path, handler, auth level and access, which the stack and the local server both loop over.

import type { SecretName } from './core/secrets.js';

/**
 * Who may call a route (deny by default: every row names its level).
 * - `none`: public (OTP, forfaits, branding GET, status page, the portal).
 * - `jwt`: any session token (subscriber, reseller, admin).
 * - `reseller`: the owning reseller or an admin; subscribers get 403. The handler checks that
 *   the resource is the reseller's own through functions/core/access.ts.
 * - `admin`: admins only.
 * - `agent`: a reseller's agent, its reseller, or an admin; subscribers get 403. The handler
 *   checks through functions/core/access.ts that the agent is the caller itself (an agent sees
 *   no other agent) or one of the reseller's own.
 * - `webhook`: the payment aggregator, by its shared secret (`x-provider-secret`, constant time).
 * - `radius`: the FreeRADIUS (and Disconnect relay) of the RADIUS front's own task, by the
 *   bearer secret of that task (RADIUS_API_SECRET) on loopback; never a session token. Only the
 *   data plane's rows (`plane: 'front'`) have it.
 * - `edge`: an in-country edge, by its own token (functions/edge/edge-auth.ts: read on each
 *   request, refused once revoked); never a session token nor the front's bearer. The handler
 *   gets the edge's resellers as its principal and speaks for their routers only.
 * - `signature`: a payment gateway, by its signature of the raw body (CinetPay's x-token,
 *   FedaPay's X-FEDAPAY-SIGNATURE), which the handler checks with the gateway's own scheme
 *   (functions/billing/gateways/) before anything is read or written; never a session token.
 */
export type AuthLevel =
  | 'none'
  | 'jwt'
  | 'reseller'
  | 'admin'
  | 'agent'
  | 'webhook'
  | 'radius'
  | 'edge'
  | 'signature';

/** What a route's function may touch; the CDK stack derives its IAM grants from this. */
export interface RouteAccess {
  table: 'none' | 'read' | 'write';
  /** `sms`: publish SMS through SNS. `ops`: publish to the operations topic. */
  sns?: 'sms' | 'ops';
  secrets?: readonly SecretName[];
  /**
   * Asks the router keys function (functions/routers/router-keys.ts) to seal a UDP router's
   * secret, sign a router's certificate or open an edge's routers' secrets: the function may
   * invoke it, and reads neither ROUTER_SEAL_KEY nor ROUTER_CA_KEY itself (no public route does).
   */
  routerKeys?: true;
  /**
   * Opens, confirms or settles payments: it may talk to whichever gateway a payment was opened
   * with, so it is given every registered gateway's secrets (functions/billing/gateways/registry.ts).
   */
  payments?: true;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway path syntax: `{name}` for a path parameter. */
  path: string;
  /** Module under `functions/` (no extension) that exports `handler`. */
  handler: string;
  auth: AuthLevel;
  access: RouteAccess;
  /** `function-url`: its own Lambda function URL in AWS instead of an API Gateway route. */
  expose?: 'api' | 'function-url';
  /**
   * `front`: the RADIUS data plane. Served by the RADIUS front's own service, beside FreeRADIUS
   * in its task, on loopback (functions/front/service.ts), never by API Gateway: not a public
   * route, not in the OpenAPI document. The rows without it are the public API.
   */
  plane?: 'front';
  /**
   * The route's own API Gateway throttle (requests per second, burst) instead of the stage's
   * default, sized from the peak of docs/scale.md: about twice the modelled rate for the
   * high-volume routes, a flood limit for the OTP routes. CDK context `<context>Rate` and
   * `<context>Burst` resize it.
   */
  throttle?: { rate: number; burst: number; context: string };
  /**
   * A function URL's reserved concurrency: no API Gateway throttle covers it, so at most this
   * many run at once and a flood cannot take the account's concurrency from the API's
   * functions. CDK context `webhookReservedConcurrency` resizes every one (0: none).
   */
  reservedConcurrency?: number;
  /** A function URL's stack output (described by the route's summary): what the operator gives the gateway. */
  output?: string;
  /** A function URL given to other routes' functions (by route key) as this environment variable. */
  shareUrl?: { env: string; with: readonly string[] };
  summary: string;
}

/** THE route table, typed row by row: route keys and auth levels are derived from it. */
const table = [
  // ---- auth ----
  {
    method: 'POST',
    path: '/api/v1/auth/otp/request',
    handler: 'auth/otp-request',
    auth: 'none',
    access: { table: 'write', sns: 'sms', secrets: ['OTP_PEPPER'] },
    // Each call may cost an SMS.
    // Peak 50/s before device credentials, 15/s after (docs/scale.md): room for 2x, not for a flood.
    throttle: { rate: 30, burst: 60, context: 'otpRequestThrottle' },
    summary: 'Send a one-time password by SMS',
  },
  {
    method: 'POST',
    path: '/api/v1/auth/otp/verify',
    handler: 'auth/otp-verify',
    auth: 'none',
    access: { table: 'write', secrets: ['OTP_PEPPER', 'JWT_SECRET'] },
    // Guesses.
    throttle: { rate: 30, burst: 60, context: 'otpVerifyThrottle' },
    summary: 'Exchange a one-time password for a session token',
  },
  {
    method: 'GET',
    path: '/api/v1/auth/session',
    handler: 'auth/session',
    auth: 'jwt',
    // Read: an operator's token is checked against its account (revocation).
    access: { table: 'read' },
    summary: 'Validate the session token',
  },
  {
    method: 'POST',
    path: '/api/v1/auth/logout',
    handler: 'auth/logout',
    auth: 'jwt',
    access: { table: 'write' },
    summary: "End the caller's session (a subscriber's: every token of its account)",
  },
  {
    method: 'POST',
    path: '/api/v1/auth/logout/all',
    handler: 'auth/logout-all',
    auth: 'jwt',
    access: { table: 'write' },
    summary: "End every session of the caller's account, on every phone and tab",
  },
  {
    method: 'POST',
    path: '/api/v1/auth/refresh',
    handler: 'auth/refresh',
    auth: 'none',
    access: { table: 'write', secrets: ['JWT_SECRET'] },
    // A console tab refreshes about every 15 minutes while it is used: a few a second at most.
    throttle: { rate: 20, burst: 40, context: 'refreshThrottle' },
    summary: "Renew a console session's token without an SMS, while the session is used",
  },
  {
    method: 'POST',
    path: '/api/v1/auth/device/session',
    handler: 'auth/device-session',
    auth: 'none',
    access: { table: 'read', secrets: ['JWT_SECRET'] },
    // Returning phones instead of an OTP: about 35/s at peak.
    throttle: { rate: 100, burst: 200, context: 'deviceSessionThrottle' },
    summary: 'Exchange a device credential for a session token, without an SMS',
  },
  {
    method: 'POST',
    path: '/api/v1/auth/device/revoke',
    handler: 'auth/device-revoke',
    auth: 'none',
    access: { table: 'write' },
    summary: 'Forget a device: its credential opens no session any more',
  },
  // ---- billing ----
  {
    method: 'GET',
    path: '/api/v1/forfaits',
    handler: 'billing/forfaits-list',
    auth: 'none',
    access: { table: 'read' },
    summary: "List the platform's forfaits on sale (with nas_id: and, first, that hotspot's own)",
  },
  {
    method: 'GET',
    path: '/api/v1/resellers/me/forfaits',
    handler: 'billing/own-forfaits-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's own forfaits in its order (hidden ones too) and the operator's bounds",
  },
  {
    method: 'POST',
    path: '/api/v1/resellers/me/forfaits',
    handler: 'billing/own-forfait-create',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Make a forfait of its own (name, price, duration, data, rates, devices, hotspots)',
  },
  {
    method: 'PUT',
    path: '/api/v1/resellers/me/forfaits/{id}',
    handler: 'billing/own-forfait-update',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Change, move or hide one of its own forfaits',
  },
  {
    method: 'GET',
    path: '/api/v1/resellers/me/pppoe/plans',
    handler: 'billing/pppoe-plans-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's PPPoE plans (monthly or weekly)",
  },
  {
    method: 'POST',
    path: '/api/v1/resellers/me/pppoe/plans',
    handler: 'billing/pppoe-plan-create',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Make a PPPoE plan (price, period, speeds, fair-use step, devices, grace days)',
  },
  {
    method: 'PUT',
    path: '/api/v1/resellers/me/pppoe/plans/{id}',
    handler: 'billing/pppoe-plan-update',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Change or hide a PPPoE plan',
  },
  {
    method: 'GET',
    path: '/api/v1/resellers/me/pppoe/subscribers',
    handler: 'billing/pppoe-subscribers-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's PPPoE subscribers and their state",
  },
  {
    method: 'POST',
    path: '/api/v1/resellers/me/pppoe/subscribers',
    handler: 'billing/pppoe-subscriber-create',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'A new PPPoE subscriber (credentials generated unless given)',
  },
  {
    method: 'GET',
    path: '/api/v1/resellers/me/pppoe/subscribers/{id}',
    handler: 'billing/pppoe-subscriber-get',
    auth: 'reseller',
    access: { table: 'read' },
    summary: 'One PPPoE subscriber with its credentials',
  },
  {
    method: 'PUT',
    path: '/api/v1/resellers/me/pppoe/subscribers/{id}',
    handler: 'billing/pppoe-subscriber-update',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Change, suspend or give new credentials to a PPPoE subscriber',
  },
  {
    method: 'POST',
    path: '/api/v1/resellers/me/pppoe/subscribers/{id}/renewals',
    handler: 'billing/pppoe-renewal-cash',
    auth: 'reseller',
    access: { table: 'write' },
    summary: "A PPPoE subscriber's next period paid in cash",
  },
  {
    method: 'POST',
    path: '/api/v1/pppoe/payments',
    handler: 'billing/pppoe-payment',
    auth: 'jwt',
    access: { table: 'write', payments: true },
    summary: "Pay the next period of one's PPPoE subscription by mobile money (optional Idempotency-Key)",
  },
  {
    method: 'POST',
    path: '/api/v1/payments/initiate',
    handler: 'billing/payment-initiate',
    auth: 'jwt',
    access: { table: 'write', payments: true },
    summary: 'Open a mobile-money payment for a forfait (optional Idempotency-Key)',
  },
  {
    method: 'POST',
    path: '/api/v1/payments/webhook',
    handler: 'billing/payment-webhook',
    auth: 'webhook',
    // The gateways' keys: a completion is confirmed with the payment's gateway's status API.
    // SMS: the access code a completed purchase creates is texted to the buyer.
    access: { table: 'write', sns: 'sms', payments: true },
    expose: 'function-url',
    // About 23 at peak (15/s, 1.5 s each with the gateway's status API): docs/scale.md.
    reservedConcurrency: 30,
    output: 'WebhookUrl',
    summary: "The payment aggregator's delivery (at least once)",
  },
  {
    method: 'POST',
    path: '/api/v1/payments/notify/{provider}',
    handler: 'billing/payment-notify',
    // The gateway's signature (CinetPay x-token, X-FEDAPAY-SIGNATURE), checked by the handler on
    // the raw body before any read or write: each gateway signs its own way.
    auth: 'signature',
    access: { table: 'write', sns: 'sms', payments: true },
    expose: 'function-url',
    // About 23 at peak (15/s, 1.5 s each with the gateway's status API): docs/scale.md.
    reservedConcurrency: 30,
    output: 'PaymentNotifyUrl',
    // CinetPay is told where to notify with each payment (the others are set in their dashboards).
    shareUrl: { env: 'PAYMENT_NOTIFY_BASE_URL', with: ['POST /api/v1/payments/initiate'] },
    summary: "A payment provider's signed notification (cinetpay, fedapay): confirmed with its status API",
  },
  {
    method: 'GET',
    path: '/api/v1/payments',
    handler: 'billing/payments-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's payments by cursor, newest first ('paid, not connected' flagged)",
  },
  {
    method: 'GET',
    path: '/api/v1/payments/{id}/status',
    handler: 'billing/payment-status',
    auth: 'jwt',
    // A pending payment is asked of its provider, and completed (code texted) when it says paid.
    access: { table: 'write', sns: 'sms', payments: true },
    // Every open payment polled every 2-5 s: about 450/s at peak.
    throttle: { rate: 1000, burst: 2000, context: 'paymentStatusThrottle' },
    summary: 'Status of a payment (the paying subscriber or an admin)',
  },
  {
    method: 'GET',
    path: '/api/v1/payments/unused',
    handler: 'billing/payments-unused',
    auth: 'reseller',
    access: { table: 'read' },
    summary:
      "Paid, never connected: a reseller's completed payments whose code had no login within 15 minutes",
  },
  {
    method: 'POST',
    path: '/api/v1/payments/{id}/resend-code',
    handler: 'billing/payment-resend-code',
    auth: 'reseller',
    access: { table: 'write', sns: 'sms' },
    summary: 'Text a paid access code to its buyer again (owning reseller or admin; at most 3 times)',
  },
  {
    method: 'POST',
    path: '/api/v1/vouchers/generate',
    handler: 'billing/vouchers-generate',
    auth: 'admin',
    access: { table: 'write' },
    summary: 'Generate 1 to 1000 vouchers of a forfait for a reseller',
  },
  {
    method: 'POST',
    path: '/api/v1/vouchers/batches',
    handler: 'billing/vouchers-batch',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Generate 1 to 1000 vouchers of a forfait (the owning reseller or an admin)',
  },
  {
    method: 'POST',
    path: '/api/v1/vouchers/redeem',
    handler: 'billing/vouchers-redeem',
    auth: 'jwt',
    access: { table: 'write' },
    summary: 'Redeem a voucher code for an access entitlement',
  },
  {
    method: 'GET',
    path: '/api/v1/vouchers',
    handler: 'billing/vouchers-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "List a reseller's vouchers (a reseller sees its own)",
  },
  {
    method: 'GET',
    path: '/api/v1/vouchers/export',
    handler: 'billing/vouchers-export',
    auth: 'reseller',
    access: { table: 'read' },
    summary: 'Export a voucher batch as CSV',
  },
  {
    method: 'GET',
    path: '/api/v1/billing/summary',
    handler: 'billing/billing-summary',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's month: total, split and sessions",
  },
  {
    method: 'GET',
    path: '/api/v1/billing/sales',
    handler: 'billing/sales-get',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's sales by day, hotspot and forfait (from its daily counters; up to 93 days)",
  },
  {
    method: 'GET',
    path: '/api/v1/billing/report',
    handler: 'billing/report-get',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's sales over up to 366 days, by hotspot, forfait, agent and channel",
  },
  {
    method: 'GET',
    path: '/api/v1/billing/report/export',
    handler: 'billing/report-export',
    auth: 'reseller',
    access: { table: 'read' },
    summary: 'The same sales report as CSV',
  },
  // ---- agents: a reseller's shops and cashiers selling codes for cash ----
  {
    method: 'POST',
    path: '/api/v1/agents',
    handler: 'agents/agent-create',
    auth: 'reseller',
    access: { table: 'write', sns: 'sms' },
    summary:
      "Invite an agent: a phone number that will sell the reseller's codes for cash once it accepts (owning reseller or admin)",
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/accept',
    handler: 'agents/agent-accept',
    auth: 'jwt',
    access: { table: 'write' },
    summary:
      "The invited number's holder accepts: its account becomes the agent's (answers an agent's session token)",
  },
  {
    method: 'GET',
    path: '/api/v1/agents',
    handler: 'agents/agents-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's agents with their float, stock, sales, commission and cash owed",
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{id}',
    handler: 'agents/agent-get',
    auth: 'agent',
    access: { table: 'read' },
    summary:
      "An agent's statement: balance, today and this month (the agent itself, its reseller or an admin)",
  },
  {
    method: 'PUT',
    path: '/api/v1/agents/{id}',
    handler: 'agents/agent-terms',
    auth: 'reseller',
    access: { table: 'write' },
    summary: "Change an agent's name, commission rate or hotspots (its reseller or an admin)",
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/allot',
    handler: 'agents/agent-allot',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Give an agent float (FCFA) or a number of codes of a forfait (its reseller or an admin)',
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/sales',
    handler: 'agents/agent-sell',
    auth: 'agent',
    access: { table: 'write', sns: 'sms' },
    summary: 'An agent sells a code for cash, from its stock or float (the agent itself; optionally texted)',
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/topups',
    handler: 'agents/agent-topup-route',
    auth: 'agent',
    access: { table: 'write' },
    summary: "An agent tops up a guest's live code for cash, from its stock or float (the agent itself)",
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{id}/sales',
    handler: 'agents/agent-sales',
    auth: 'agent',
    access: { table: 'read' },
    summary: "An agent's sales of a span, newest first (the agent itself, its reseller or an admin)",
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{id}/sales/export',
    handler: 'agents/agent-sales-export',
    auth: 'agent',
    access: { table: 'read' },
    summary: "An agent's sales of a span as CSV",
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/cash',
    handler: 'agents/agent-cash',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Record cash an agent handed to its reseller (its reseller or an admin)',
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/move',
    handler: 'agents/agent-move',
    auth: 'reseller',
    access: { table: 'write' },
    summary: "Move float or codes from an agent to another of the reseller's agents, or back to the reseller",
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{id}/handovers',
    handler: 'agents/agent-handovers',
    auth: 'agent',
    access: { table: 'read' },
    summary:
      "An agent's handovers: float and codes given or moved, cash received (the agent itself, its reseller or an admin)",
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/sales/{code}/undo',
    handler: 'agents/agent-sale-undo',
    auth: 'agent',
    access: { table: 'write' },
    summary: 'Undo a sale of the last minutes whose code was never used (float or stock back, code revoked)',
  },
  {
    method: 'POST',
    path: '/api/v1/agents/{id}/handovers/{handover_id}/undo',
    handler: 'agents/agent-handover-undo',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Undo a handover of the last five minutes (its reseller or an admin)',
  },
  // ---- network ----
  {
    method: 'GET',
    path: '/api/v1/network/vlans',
    handler: 'network/vlans-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: 'List VLAN allocations (a reseller sees its own)',
  },
  {
    // POST with the number in the body, not DELETE with it in the path: a path is in the access log.
    method: 'POST',
    path: '/api/v1/subscribers/erase',
    handler: 'auth/subscriber-erase',
    auth: 'admin',
    access: { table: 'write' },
    summary:
      'Erase a subscriber: account, OTP, remembered devices deleted; the number taken off every record',
  },
  {
    method: 'POST',
    path: '/api/v1/network/vlan/allocate',
    handler: 'network/vlan-allocate',
    auth: 'admin',
    access: { table: 'write' },
    summary: "Allocate a reseller's VLAN, NAS id, SSID and gateway rules",
  },
  {
    method: 'DELETE',
    path: '/api/v1/network/vlans/{vlan_id}',
    handler: 'network/vlan-release',
    auth: 'admin',
    access: { table: 'write' },
    summary: 'Release a VLAN (its sites, NAS ids, branding and rules go with it)',
  },
  {
    method: 'POST',
    path: '/api/v1/network/sites',
    handler: 'network/sites-create',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Register a site of a multi-site reseller',
  },
  {
    method: 'GET',
    path: '/api/v1/network/sites/{reseller_id}',
    handler: 'network/sites-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "List a reseller's sites",
  },
  {
    method: 'POST',
    path: '/api/v1/resellers',
    handler: 'network/reseller-onboard',
    auth: 'admin',
    // The router keys seal the first router's UDP secret, or sign its certificate.
    access: { table: 'write', routerKeys: true },
    summary: 'Onboard a reseller: its account, VLAN, NAS id, first site and first router in one request',
  },
  {
    method: 'GET',
    path: '/api/v1/branding/{nas_id}',
    handler: 'network/branding-get',
    auth: 'none',
    access: { table: 'read' },
    summary: 'Captive-portal branding of a hotspot (?view=portal: four fields)',
  },
  {
    method: 'PUT',
    path: '/api/v1/branding/{nas_id}',
    handler: 'network/branding-put',
    auth: 'reseller',
    access: { table: 'write' },
    summary: "Update a hotspot's branding (owning reseller or admin)",
  },
  {
    method: 'PUT',
    path: '/api/v1/branding/{nas_id}/logo',
    handler: 'network/logo-put',
    auth: 'reseller',
    access: { table: 'write' },
    summary:
      "Upload a hotspot's logo (PNG or JPEG, 40 KB at most, decoded and encoded again), served from the platform's origin",
  },
  {
    method: 'GET',
    path: '/api/v1/branding/{nas_id}/logo/{hash}',
    handler: 'network/logo-get',
    auth: 'none',
    access: { table: 'read' },
    summary: "A hotspot's uploaded logo (immutable: a new upload has a new hash)",
  },
  {
    method: 'PUT',
    path: '/api/v1/network/nas/{nas_id}/login-origin',
    handler: 'network/login-origin-put',
    auth: 'reseller',
    access: { table: 'write' },
    summary: "Register the origin a hotspot's router takes logins on: the portal posts codes there only",
  },
  {
    method: 'GET',
    path: '/api/v1/network/dns/status',
    handler: 'network/dns-status-get',
    auth: 'jwt',
    access: { table: 'read' },
    summary: 'DNS sinkhole status',
  },
  {
    method: 'PUT',
    path: '/api/v1/network/dns/status',
    handler: 'network/dns-status-put',
    auth: 'admin',
    access: { table: 'write' },
    summary: "Report the DNS sinkhole's blocklist (the DNS host)",
  },
  {
    method: 'GET',
    path: '/api/v1/network/gateway/rules',
    handler: 'network/gateway-rules-list',
    auth: 'admin',
    access: { table: 'read' },
    summary: 'Gateway firewall rules, optionally of one VLAN',
  },
  // ---- monitoring ----
  {
    method: 'GET',
    path: '/api/v1/monitoring/overview',
    handler: 'monitoring/overview-get',
    auth: 'jwt',
    access: { table: 'read' },
    summary: 'Active sessions, uptime, active alerts and SLA over the last 30 days',
  },
  {
    method: 'GET',
    path: '/api/v1/monitoring/status',
    handler: 'monitoring/status-get',
    auth: 'none',
    access: { table: 'read' },
    summary: 'Public status of the service, from the latest canary run',
  },
  {
    method: 'GET',
    path: '/api/v1/alerts',
    handler: 'monitoring/alerts-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "List alerts (a reseller sees its own sites')",
  },
  {
    method: 'PUT',
    path: '/api/v1/alerts/{id}/ack',
    handler: 'monitoring/alert-ack',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Acknowledge an alert (idempotent)',
  },
  {
    method: 'GET',
    path: '/api/v1/canary/status',
    handler: 'monitoring/canary-status',
    auth: 'jwt',
    access: { table: 'read' },
    summary: 'Latest canary run: the five checks, failure streak and overall status',
  },
  {
    method: 'GET',
    path: '/api/v1/sessions',
    handler: 'monitoring/sessions-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's live sessions by cursor, with what each code has left",
  },
  {
    method: 'GET',
    path: '/api/v1/activity',
    handler: 'monitoring/activity-list',
    auth: 'admin',
    access: { table: 'read' },
    summary: 'The activity log: writes by operators and resellers (who, what, when, from where), by cursor',
  },
  // ---- radius: the network edge (FreeRADIUS asks its task's service, which decides: plane 'front') ----
  {
    method: 'POST',
    path: '/api/v1/radius/authorize',
    handler: 'radius/radius-authorize',
    auth: 'radius',
    plane: 'front',
    access: { table: 'write' },
    summary: 'May this access code connect at this hotspot? The reply carries time, rate and data limits',
  },
  {
    method: 'POST',
    path: '/api/v1/radius/post-auth',
    handler: 'radius/radius-post-auth',
    auth: 'radius',
    plane: 'front',
    // Write: the login itself (device lease, data grant, clock, a voucher's redemption: see
    // functions/radius/login.ts); read: the router's record (functions/radius/caller.ts).
    access: { table: 'write' },
    summary: 'A login FreeRADIUS accepted (counted for operations)',
  },
  {
    method: 'POST',
    path: '/api/v1/radius/accounting',
    handler: 'radius/radius-accounting',
    auth: 'radius',
    plane: 'front',
    access: { table: 'write' },
    summary: 'Accounting Start, Interim-Update, Stop, Accounting-On/Off: usage counted exactly once',
  },
  {
    method: 'POST',
    path: '/api/v1/radius/disconnects/claim',
    handler: 'radius/radius-disconnects-claim',
    auth: 'radius',
    plane: 'front',
    // The seed opens each router's sealed UDP secret, which its Disconnect-Request is signed with.
    access: { table: 'write', secrets: ['ROUTER_SEAL_KEY'] },
    summary:
      'The Disconnect-Requests (RFC 5176) the RADIUS front is to send to routers now, each claimed once',
  },
  {
    method: 'POST',
    path: '/api/v1/radius/disconnects/{id}/result',
    handler: 'radius/radius-disconnect-result',
    auth: 'radius',
    plane: 'front',
    access: { table: 'write' },
    summary: "A router's answer to a Disconnect-Request: ACK closes the session, NAK or silence is retried",
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/ended',
    handler: 'monitoring/sessions-ended',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's sessions ended in the last 30 days, by code or by the buyer's phone",
  },
  {
    method: 'GET',
    path: '/api/v1/sessions/{id}',
    handler: 'monitoring/session-get',
    auth: 'reseller',
    access: { table: 'read' },
    summary: 'A RADIUS session and the state of its disconnect (owning reseller or admin)',
  },
  {
    method: 'POST',
    path: '/api/v1/sessions/{id}/disconnect',
    handler: 'monitoring/session-disconnect',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Cut a live session: a Disconnect-Request goes to its router through the RADIUS front',
  },
  {
    method: 'POST',
    path: '/api/v1/access/{code}/revoke',
    handler: 'billing/access-revoke',
    auth: 'reseller',
    access: { table: 'write' },
    summary: 'Revoke an access code: refused from now on, its live sessions disconnected',
  },
  {
    method: 'POST',
    path: '/api/v1/access/{code}/topups',
    handler: 'billing/code-topup',
    auth: 'reseller',
    access: { table: 'write' },
    summary: "Top up a live code with a forfait's time and data, paid in cash (its reseller or an admin)",
  },
  {
    method: 'POST',
    path: '/api/v1/radius/client',
    handler: 'radius/radius-client',
    auth: 'radius',
    plane: 'front',
    access: { table: 'read', secrets: ['ROUTER_SEAL_KEY'] },
    summary:
      "FreeRADIUS's dynamic client lookup: the UDP router registered at a source address, with its secret",
  },
  // ---- edge: an in-country edge's calls (docs/outage.md). An edge is a machine in a country,
  // outside AWS: it cannot reach a front's loopback service, so these are public API routes,
  // answered to an edge's token only, by the same decision code as the front's rows, for the
  // routers of the edge's own resellers. An edge is the routers' second RADIUS server: these
  // carry what the routers send it (all of its country's traffic if the front is unreachable)
  // and its replays after a cut. Throttled at about twice the national peak of docs/scale.md
  // (accounting 767/s, authorize and post-auth 50/s each, 10,000 UDP routers' client lookups
  // once a minute: 167/s), so that a whole country failing over to its edge is not refused. ----
  {
    method: 'POST',
    path: '/api/v1/edge/replica',
    handler: 'edge/edge-replica',
    auth: 'edge',
    // The router keys open the edge's UDP routers' secrets (its FreeRADIUS checks their packets);
    // each sync is recorded (functions/store/edge-syncs.ts: how a cut is told from a power cut).
    access: { table: 'write', routerKeys: true },
    // Each edge asks once a minute (EDGE_SYNC_S): a hundred edges are under 2/s.
    throttle: { rate: 20, burst: 40, context: 'edgeReplicaThrottle' },
    summary:
      "An in-country edge's replica: its resellers' routers, NAS ids and the codes that can still log in (docs/outage.md)",
  },
  {
    method: 'POST',
    path: '/api/v1/edge/radius/authorize',
    handler: 'edge/edge-radius-authorize',
    auth: 'edge',
    access: { table: 'write' },
    throttle: { rate: 100, burst: 200, context: 'edgeLoginThrottle' },
    summary:
      "An edge's authorize, forwarded from its FreeRADIUS: as the front's, for its own resellers' routers",
  },
  {
    method: 'POST',
    path: '/api/v1/edge/radius/post-auth',
    handler: 'edge/edge-radius-post-auth',
    auth: 'edge',
    access: { table: 'write' },
    throttle: { rate: 100, burst: 200, context: 'edgeLoginThrottle' },
    summary: "An edge's post-auth (a login it accepted, or replays after a cut): written as the front's",
  },
  {
    method: 'POST',
    path: '/api/v1/edge/radius/accounting',
    handler: 'edge/edge-radius-accounting',
    auth: 'edge',
    access: { table: 'write' },
    throttle: { rate: 1500, burst: 3000, context: 'edgeAccountingThrottle' },
    summary: "An edge's accounting, forwarded or replayed in order after a cut: usage counted exactly once",
  },
  {
    method: 'POST',
    path: '/api/v1/edge/radius/client',
    handler: 'edge/edge-radius-client',
    auth: 'edge',
    // The edge's token is read here; the router keys look the address up and open its secret.
    access: { table: 'read', routerKeys: true },
    throttle: { rate: 400, burst: 800, context: 'edgeClientThrottle' },
    summary: "An edge's dynamic client lookup: one of its resellers' UDP routers at a source address",
  },
  // ---- routers: each router's own RADIUS credentials ----
  {
    method: 'POST',
    path: '/api/v1/routers',
    handler: 'routers/routers-create',
    auth: 'reseller',
    access: { table: 'write', routerKeys: true },
    summary:
      "Register a router for some of the reseller's NAS ids: its RadSec certificate or UDP secret, shown once",
  },
  {
    method: 'GET',
    path: '/api/v1/routers',
    handler: 'routers/routers-list',
    auth: 'reseller',
    access: { table: 'read' },
    summary: "A reseller's routers (never their keys or secrets)",
  },
  {
    method: 'GET',
    path: '/api/v1/routers/{router_id}',
    handler: 'routers/router-get',
    auth: 'reseller',
    access: { table: 'read' },
    summary: 'One router (never its key or secret)',
  },
  {
    method: 'POST',
    path: '/api/v1/routers/{router_id}/revoke',
    handler: 'routers/router-revoke',
    auth: 'reseller',
    access: { table: 'write' },
    summary:
      "Revoke a router's credentials: refused by the API at once, dropped by FreeRADIUS within a minute",
  },
  {
    method: 'POST',
    path: '/api/v1/routers/{router_id}/credentials',
    handler: 'routers/router-credentials',
    auth: 'reseller',
    access: { table: 'write', routerKeys: true },
    summary: 'New credentials for a router (shown once); its previous certificate or secret stops working',
  },
  {
    method: 'POST',
    path: '/api/v1/access/check',
    handler: 'portal/access-check',
    auth: 'none',
    // Write: the wrong-code budgets it counts (functions/radius/guesses.ts).
    access: { table: 'write' },
    summary: 'What an access code still allows at a hotspot (the captive portal, before logging in)',
  },
  {
    method: 'POST',
    path: '/api/v1/access/pass',
    handler: 'portal/access-pass',
    auth: 'jwt',
    // Write: the account's wrong-code budget, and the pass.
    access: { table: 'write' },
    summary:
      "A signed-in subscriber's login pass for one device at a hotspot: its card gets in there while wrong codes flood it",
  },
  {
    method: 'GET',
    path: '/api/v1/access/mine',
    handler: 'portal/access-mine',
    auth: 'jwt',
    access: { table: 'read' },
    summary: "The caller's access codes with time left (at one hotspot with ?nas_id=)",
  },
  {
    method: 'POST',
    path: '/api/v1/access/devices',
    handler: 'portal/access-device-remember',
    auth: 'none',
    access: { table: 'write' },
    summary:
      'Remember a device for MAC login with its code (the portal, with the subscriber consent; at most max_devices)',
  },
  {
    method: 'POST',
    path: '/api/v1/access/devices/forget',
    handler: 'portal/access-device-forget',
    auth: 'none',
    access: { table: 'write' },
    summary: 'Forget a device remembered for a code (the portal, by whoever holds the code)',
  },
  {
    method: 'GET',
    path: '/api/v1/access/devices/mine',
    handler: 'portal/access-devices-mine',
    auth: 'jwt',
    access: { table: 'read' },
    summary: "The devices remembered for MAC login on the caller's codes",
  },
  {
    method: 'DELETE',
    path: '/api/v1/access/{code}/devices/{mac}',
    handler: 'portal/access-device-delete',
    auth: 'jwt',
    access: { table: 'write' },
    summary: "Forget a device of the caller's own code: its next MAC login is refused",
  },
  // ---- portal ----
  {
    method: 'GET',
    path: '/api/v1/captive/{nas_id}',
    handler: 'portal/captive-api',
    auth: 'none',
    access: { table: 'read' },
    summary: 'RFC 8908 Captive Portal API of a hotspot (application/captive+json; ?mac= names the device)',
  },
  {
    method: 'GET',
    path: '/portal/{nas_id}',
    handler: 'portal/portal-page',
    auth: 'none',
    access: { table: 'read' },
    summary: "A hotspot's captive portal page (HTML, branded; ?lang=fr|en and the router's parameters)",
  },
  {
    method: 'GET',
    path: '/portal/assets/{file}',
    handler: 'portal/portal-asset',
    auth: 'none',
    access: { table: 'none' },
    summary: "The captive portal's script and stylesheet (content-hashed names, cached for a year)",
  },
  // ---- console: the resellers' and operators' screens (same origin as the API) ----
  {
    method: 'GET',
    path: '/console',
    handler: 'console/console-page',
    auth: 'none',
    access: { table: 'none' },
    summary: "The resellers' and operators' console (HTML shell; the screens call this API)",
  },
  {
    method: 'GET',
    path: '/console/assets/{file}',
    handler: 'console/console-asset',
    auth: 'none',
    access: { table: 'none' },
    summary: "The console's scripts and stylesheet (content-hashed names, cached for a year)",
  },
] as const satisfies readonly Route[];

/** The route table: the CDK stack and the local server both loop over it. */
export const routes: readonly Route[] = table;

type Row = (typeof table)[number];
/** Every route key of the table, `METHOD /path`: a handler names its row by one of these. */
export type RouteKey = Row extends infer R ? (R extends Row ? `${R['method']} ${R['path']}` : never) : never;
/** The auth level of each route key. */
export type AuthOf<K extends RouteKey> = { [R in Row as `${R['method']} ${R['path']}`]: R['auth'] }[K];

/** The auth levels whose callers hold a session token. */
type SessionLevel = 'jwt' | 'reseller' | 'admin' | 'agent';
/** Route keys whose handlers check a session token (`sessionEndpoint`, functions/auth/session-endpoint.ts). */
export type SessionRouteKey = { [K in RouteKey]: AuthOf<K> extends SessionLevel ? K : never }[RouteKey];
/** Route keys called without a session token: public, the aggregator's, FreeRADIUS's (`endpoint`). */
export type OpenRouteKey = Exclude<RouteKey, SessionRouteKey>;

export const routeKey = (r: Pick<Route, 'method' | 'path'>): RouteKey => `${r.method} ${r.path}` as RouteKey;

/**
 * A deployed function's own row, as JSON: its bundle defines it (`routeDefine`, lib/bundling.ts),
 * so the route table stays out of the bundle (esbuild drops it as unused). Undefined elsewhere
 * (the local server, the tests), where the table is read.
 */
declare const HOTSPOT_ROUTE: string | undefined;

/** The row of a route; handlers look themselves up so that auth is declared only here. */
export function findRoute(key: RouteKey): Route {
  // One expression, so that esbuild drops the branch a bundle does not take (and the table).
  const route =
    typeof HOTSPOT_ROUTE === 'string'
      ? (JSON.parse(HOTSPOT_ROUTE) as Route)
      : routes.find((r) => routeKey(r) === key);
  if (!route || routeKey(route) !== key)
    throw new Error(
      `No route ${key} in ${route ? `a bundle built for ${routeKey(route)}` : 'the route table'}`,
    );
  return route;
}

/** The secrets a route's function reads: its own plus the JWT key whenever it checks tokens. */
export function routeSecrets(route: Route): SecretName[] {
  const set = new Set<SecretName>(route.access.secrets ?? []);
  if (route.auth === 'jwt' || route.auth === 'reseller' || route.auth === 'admin' || route.auth === 'agent')
    set.add('JWT_SECRET');
  if (route.auth === 'webhook') set.add('WEBHOOK_SECRET');
  if (route.auth === 'radius') set.add('RADIUS_API_SECRET');
  return [...set];
}
