// A payment opened: its forfait and price, its idempotency key, its gateway's payment page.

import { randomUUID } from 'node:crypto';
import { clock } from '../../core/clock.js';
import { config } from '../../core/config.js';
import { currencyOf } from '../../core/currency.js';
import { AppError, notFound } from '../../core/errors.js';
import { normalizeCode } from '../../radius/attributes.js';
import { gateAccountGuess } from '../../radius/guesses.js';
import { getAccessCode } from '../../store/access-codes.js';
import { getNas } from '../../store/nas.js';
import {
  createPayment,
  getIdempotencyRecord,
  getPayment,
  type Payment,
  type Provider,
  setPaymentUrl,
} from '../../store/payments.js';
import type { PppoePlan, PppoeSubscriber } from '../../store/pppoe.js';
import { untilSettled } from '../../store/retry.js';
import { UNATTRIBUTED, unattributedFor } from '../../store/revenue.js';
import { resellerCountry } from '../currency.js';
import type { PaymentRequest } from '../gateways/port.js';
import { adapterFor, notifyPath } from '../gateways/registry.js';
import { gatewayFor } from '../gateways/routing.js';
import { forfaitForSale, offerOf } from '../ledger.js';
import { billingSettings } from '../settings.js';
import { assertLive } from '../topups.js';
import { gatewayOf } from './gateway-view.js';

const MAX_TRIES = 8;

/**
 * The code a payment tops up: one of the hotspot's reseller (none named: no code is), live;
 * behind the buyer's account's guess budget (any answer but a 404 tells a code exists).
 */
async function codeToTopUp(
  typed: string,
  resellerId: string | undefined,
  subscriberId: string,
): Promise<string> {
  const code = await getAccessCode(normalizeCode(typed));
  const found = code && resellerId !== undefined && code.reseller_id === resellerId ? code : undefined;
  await gateAccountGuess(subscriberId, clock.now(), found ? 'hit' : 'miss');
  if (!found) throw notFound('Code');
  assertLive(found, clock.now());
  return found.code;
}

function paymentRequest(p: Payment): PaymentRequest {
  const b = billingSettings();
  const base = config().PUBLIC_BASE_URL.replace(/\/$/, '');
  const notifyBase = (b.PAYMENT_NOTIFY_BASE_URL || base).replace(/\/$/, '');
  const callback = b.AGGREGATOR_CALLBACK_URL;
  return {
    reference: p.id,
    amount_fcfa: p.amount_fcfa,
    currency: p.currency,
    provider: p.provider,
    description: `WiFi ${p.forfait_name}`,
    ...(p.msisdn ? { msisdn: p.msisdn } : {}),
    notify_url: `${notifyBase}${notifyPath(gatewayOf(p))}`,
    // Back to the hotspot's portal, which shows the code once the payment completes.
    return_url:
      b.PAYMENT_RETURN_URL ||
      (p.nas_id
        ? `${base}/portal/${encodeURIComponent(p.nas_id)}?payment=${encodeURIComponent(p.id)}`
        : base),
    ...(callback ? { callback_url: callback } : {}),
  };
}

async function withUrl(p: Payment): Promise<{ payment_url: string; transaction_id: string }> {
  let url = p.payment_url;
  if (!url) {
    // Written before the provider answered (or that call failed): ask again with the same
    // reference; providers deduplicate on it where they can.
    const opened = await adapterFor(gatewayOf(p)).createPayment(paymentRequest(p));
    url = opened.payment_url;
    await setPaymentUrl(p.id, url, opened.provider_reference);
  }
  return { payment_url: url, transaction_id: p.id };
}

/** What an idempotency key binds to: the same key with another request is a client bug (409). */
const fingerprint = (input: {
  forfaitId: string;
  provider: Provider;
  nasId?: string;
  topupCode?: string;
  renewal?: Renewal;
}) =>
  JSON.stringify([
    input.forfaitId,
    input.provider,
    input.nasId ?? null,
    ...(input.topupCode ? [input.topupCode] : []),
    ...(input.renewal ? [`pppoe:${input.renewal.subscriber.id}`] : []),
  ]);

/** A PPPoE subscriber's next period, sold by the payment instead of a forfait (functions/billing/pppoe-renewals.ts). */
interface Renewal {
  subscriber: PppoeSubscriber;
  plan: PppoePlan;
}

/** What a payment sells: a forfait on sale, or a PPPoE plan's period (its price, its speeds). */
async function soldBy(
  input: { forfaitId: string; renewal?: Renewal },
  at: { resellerId?: string; nasId?: string },
): Promise<Pick<Payment, 'forfait_id' | 'forfait_name' | 'offer' | 'amount_fcfa'>> {
  if (input.renewal) {
    const { plan } = input.renewal;
    return {
      forfait_id: plan.id,
      forfait_name: plan.name,
      offer: {
        duration_hours: plan.period === 'week' ? 7 * 24 : 31 * 24,
        data_limit_mb: 0,
        cir_kbps: plan.up_kbps,
        mir_kbps: plan.down_kbps,
        max_devices: plan.max_devices,
      },
      amount_fcfa: plan.price_fcfa,
    };
  }
  // A reseller's own forfait only at its hotspots; the amount is always the forfait's price.
  const forfait = await forfaitForSale(input.forfaitId, at);
  return {
    forfait_id: forfait.id,
    forfait_name: forfait.name,
    offer: offerOf(forfait),
    amount_fcfa: forfait.price_fcfa,
  };
}

/**
 * Opens a payment for a forfait on sale, in the currency of the hotspot's reseller, with the
 * configured gateway. With an idempotency key, the payment and the key's record are written in
 * one transaction: a repeat (even a parallel one) gets the same payment; the same key with a
 * different forfait, provider or NAS id is refused (409 ERR_IDEMPOTENCY_MISMATCH).
 */
export async function initiatePayment(input: {
  subscriberId: string;
  msisdn?: string;
  forfaitId: string;
  provider: Provider;
  nasId?: string;
  idempotencyKey?: string;
  /** False: the buyer's screen shows the code, no SMS at completion. */
  codeSms?: boolean;
  /** A top-up of this code (of the hotspot's reseller, live: else 404 or 409), not a new code. */
  topupCode?: string;
  /** A PPPoE renewal (its reseller's, read by the caller): `forfaitId` is its plan's id. */
  renewal?: Renewal;
}): Promise<{ payment_url: string; transaction_id: string }> {
  const key = input.idempotencyKey;
  const request = fingerprint(input);
  const existing = async (): Promise<Payment | undefined> => {
    if (!key) return undefined;
    const record = await getIdempotencyRecord(input.subscriberId, key);
    if (!record) return undefined;
    if (record.request !== request) {
      throw new AppError('ERR_IDEMPOTENCY_MISMATCH', 'This Idempotency-Key was used for a different request');
    }
    return getPayment(record.payment_id);
  };
  const known = await existing();
  if (known) return withUrl(known);

  let resellerId: string | undefined = input.renewal?.subscriber.reseller_id;
  if (input.nasId) {
    const nas = await getNas(input.nasId);
    if (!nas) throw notFound('NAS');
    resellerId = nas.reseller_id;
  }
  const sold = await soldBy(input, {
    ...(resellerId ? { resellerId } : {}),
    ...(input.nasId ? { nasId: input.nasId } : {}),
  });
  const topupCode = input.topupCode
    ? await codeToTopUp(input.topupCode, resellerId, input.subscriberId)
    : undefined;
  const country = await resellerCountry(resellerId ?? UNATTRIBUTED);
  const currency = currencyOf(country);
  const direct = billingSettings()
    .PAYMENT_DIRECT_GATEWAYS.split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const gateway = gatewayFor(country, input.provider, direct);
  // A parallel request holds the key but its payment is not readable yet: try again.
  return untilSettled(
    async () => {
      const now = clock.now();
      const payment: Payment = {
        id: randomUUID(),
        subscriber_id: input.subscriberId,
        ...sold,
        currency,
        provider: input.provider,
        gateway,
        reseller_id: resellerId ?? unattributedFor(currency),
        msisdn: input.msisdn,
        ...(input.codeSms === false ? { code_sms: false } : {}),
        ...(input.nasId ? { nas_id: input.nasId } : {}),
        ...(topupCode ? { topup_code: topupCode } : {}),
        ...(input.renewal ? { pppoe_subscriber_id: input.renewal.subscriber.id } : {}),
        status: 'pending',
        created_at: clock.iso(now),
        expires_at: clock.iso(now + billingSettings().PAYMENT_TTL_MINUTES * 60_000),
      };
      const outcome = await createPayment(payment, key ? { key, request } : undefined);
      if (outcome === 'created') return withUrl(payment);
      const other = await existing();
      return other ? withUrl(other) : undefined;
    },
    () => {
      throw new AppError('ERR_CONFLICT', 'A request with this Idempotency-Key is in progress, retry');
    },
    MAX_TRIES,
  );
}
