// The port every payment gateway implements, and what each declares once about itself.

import type { Currency } from '../../core/currency.js';
import type { SecretName } from '../../core/secrets.js';

/**
 * The port every payment gateway implements, and what each declares once about itself. Words:
 * a *gateway* is the payment company the service talks to (CinetPay, FedaPay, the generic HTTP
 * aggregator, the local sandbox); a *provider* is the mobile-money operator the buyer pays with
 * (Orange Money, MTN MoMo, Moov, Wave), as in the API specification. The specification's
 * `provider` fields and the `/payments/notify/{provider}` path keep their names: that path
 * segment is a gateway's name.
 */

/** What a gateway is asked to open: a payment of ours, and where to send the buyer and the news. */
export interface PaymentRequest {
  /** Our payment id: the gateway's merchant reference (it deduplicates on it where it can). */
  reference: string;
  amount_fcfa: number;
  currency: Currency;
  /** The mobile-money operator the buyer chose (orange_money, ...). */
  provider: string;
  description: string;
  /** The buyer's number (E.164), when known: some pages fill it in. */
  msisdn?: string;
  /** Where the gateway posts its notification for this payment (CinetPay takes it per payment). */
  notify_url: string;
  /** Where the gateway's page sends the buyer back. */
  return_url: string;
  /** The generic aggregator's webhook URL (AGGREGATOR_CALLBACK_URL), when configured. */
  callback_url?: string;
}

/** The page to pay on, and the gateway's own id of the payment when it has one. */
export interface OpenedPayment {
  payment_url: string;
  provider_reference?: string;
}

/**
 * `refunded`: the gateway gave the money back, in full or in part, after the buyer paid (a
 * partial refund is not a paid forfait): a completed payment's code is taken back.
 */
export type GatewayStatus = 'pending' | 'completed' | 'failed' | 'refunded';

/** The gateway's own view of a payment, from its status API: what a credit is decided on. */
export interface PaymentState {
  status: GatewayStatus;
  amount_fcfa: number;
  /** Absent from the generic aggregator, whose API predates currencies. */
  currency?: string;
  /** The operator, where the provider's API tells it (the generic aggregator). */
  provider?: string;
  provider_reference?: string;
}

/** A gateway notification whose signature verified: a prompt to ask the status API. */
export interface GatewayNotification {
  /** Unique per notification: the same one seen again for the same payment is a replay. */
  id: string;
  payment_id: string;
  /** What the notification claims; the status API decides. Absent when it claims nothing. */
  status?: GatewayStatus;
  amount_fcfa?: number;
  currency?: string;
  provider_reference?: string;
}

export type VerifiedNotification =
  | { kind: 'payment'; notification: GatewayNotification }
  /** Signed by the gateway but about nothing we sell (another event type, another site). */
  | { kind: 'ignored'; reason: string };

/** Where a payment is, for a status check: our id and the provider's. */
export interface PaymentRef {
  reference: string;
  provider_reference?: string;
}

/** The port every payment gateway implements (its adapter). */
export interface GatewayAdapter {
  createPayment(req: PaymentRequest): Promise<OpenedPayment>;
  /**
   * The gateway's record of a payment (undefined: it does not know it). `attempts` bounds a
   * call made while a client waits (the status read).
   */
  paymentState?(ref: PaymentRef, options?: { attempts?: number }): Promise<PaymentState | undefined>;
  /**
   * Checks a notification's signature (headers lower-cased, the raw body as received) before
   * anything reads it; throws ERR_SIGNATURE_INVALID or ERR_SIGNATURE_STALE. Absent from
   * gateways that deliver through the spec webhook instead.
   */
  verifyNotification?(
    headers: Record<string, string>,
    rawBody: string,
    nowMs: number,
  ): Promise<VerifiedNotification>;
  /**
   * Asks the gateway to give a paid payment's money back in full (an operator's decision). It
   * takes nothing back here: the code is taken back when the gateway's state says `refunded`
   * (its notification, or the status read right after). Absent where refunds are made in the
   * gateway's own dashboard.
   */
  refund?(ref: PaymentRef): Promise<void>;
}

/**
 * What a gateway declares once: its name (the `gateway` stored on a payment, the last segment of
 * its notification path), the secrets its adapter reads (every function that settles payments
 * is given them), how it tells the outcome, and whether it has a status API.
 */
export interface GatewayDeclaration<N extends string = string> {
  readonly name: N;
  readonly secrets: readonly SecretName[];
  /**
   * `spec-webhook`: it delivers through `POST /api/v1/payments/webhook` (shared secret).
   * `signed`: it posts its own signed notification to `/api/v1/payments/notify/<name>`.
   */
  readonly notifies: 'spec-webhook' | 'signed';
  /**
   * false: a spec-webhook delivery of a pending payment is credited without asking the status
   * API first (the sandbox, whose page delivers its own decision). A completion of a payment
   * already `failed` or `expired` is always confirmed there. Absent: AGGREGATOR_CONFIRM_WEBHOOK.
   */
  readonly confirmsPending?: false;
  /** The settings (environment names) its adapter reads, documented with it. */
  readonly settings: readonly string[];
  /** Builds its adapter when a payment needs it (settings and secrets are read then). */
  readonly adapter: () => GatewayAdapter;
}
