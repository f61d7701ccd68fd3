// THE ledger: what a sale is (a payment, a voucher, a top-up, an agent's) and the bookings it makes, written once for every flow.

import { clock, monthOf } from '../core/clock.js';
import { config } from '../core/config.js';
import { notFound } from '../core/errors.js';
import type { AccessCode, AccessOffer } from '../store/access-codes.js';
import type { AgentSale } from '../store/agents.js';
import { NO_HOTSPOT } from '../store/books.js';
import type { Entitlement } from '../store/entitlements.js';
import type { TxItem } from '../store/entity.js';
import { getForfait, type Offer, onSaleAt, type StoredForfait } from '../store/forfaits.js';
import type { Payment } from '../store/payments.js';
import {
  type PlanPeriod,
  type PppoePlan,
  type PppoeRenewal,
  type PppoeSubscriber,
  renewalItems,
} from '../store/pppoe.js';
import { monthEntry } from '../store/revenue.js';
import { dayEntry } from '../store/sales.js';
import { newCode } from './codes.js';

/**
 * THE ledger: what a sale is, whatever makes it. Six flows sell (a mobile-money payment, a
 * voucher redeemed through the API, a voucher's first use at a router, an agent's cash sale, a
 * top-up of a live code, a PPPoE subscription's period), a refund unmakes a payment's sale and an
 * undo an agent's; each takes from here the offer it grants, the access
 * code it makes and the bookings of its sale, and adds only its own items to the transaction.
 * No other module writes a revenue or daily-sales item (test/unit/ledger.test.ts).
 */

/**
 * How a sale was paid: through a mobile-money provider, with a voucher, in cash to an agent
 * (`cash`), or in cash at the reseller's own counter (`counter`: a top-up made in its console).
 */
export type Channel = 'mobile_money' | 'voucher' | 'cash' | 'counter';

/** A sale as the books take it. */
interface Sale {
  resellerId: string;
  forfaitId: string;
  /** The hotspot it was sold for (none: a voucher redeemed through the API, a payment without one). */
  nasId?: string;
  channel: Channel;
  amountFcfa: number;
  /** A cash sale's agent and the commission it keeps. */
  agent?: { id: string; commissionFcfa: number };
}

/**
 * The forfait a sale sells, if it may be sold there: the platform's anywhere; a reseller's own
 * only for that reseller, at one of its hotspots (those it lists, when it lists some), and not
 * while hidden. `nasId`: the hotspot of the sale; `anyHotspot`: a sale not tied to one yet (a
 * stock of codes given to an agent, checked again at its sale). Else 404, as an unknown id.
 */
export async function forfaitForSale(
  id: string,
  at: { resellerId?: string; nasId?: string; anyHotspot?: boolean },
): Promise<StoredForfait> {
  const f = await getForfait(id);
  if (!f) throw notFound('Forfait');
  const scoped = at.anyHotspot && f.reseller_id !== undefined && f.reseller_id === at.resellerId;
  const ok = scoped
    ? onSaleAt({ ...f, nas_ids: [] }, { resellerId: f.reseller_id as string })
    : onSaleAt(f, { resellerId: at.resellerId ?? '', ...(at.nasId ? { nasId: at.nasId } : {}) });
  if (!ok) throw notFound('Forfait');
  return f;
}

/** What a forfait grants, as copied onto what sells it: one device when it says none. */
export const offerOf = (f: Offer): AccessOffer => ({
  duration_hours: f.duration_hours,
  data_limit_mb: f.data_limit_mb,
  cir_kbps: f.cir_kbps,
  mir_kbps: f.mir_kbps,
  max_devices: f.max_devices ?? 1,
});

/** The entitlement an offer grants from now. */
export function grant(
  subscriberId: string,
  forfaitId: string,
  offer: Offer,
  source: Entitlement['source'],
  sourceId: string,
  nowMs: number,
): Entitlement {
  return {
    id: source === 'payment' ? sourceId : `V-${sourceId}`,
    subscriber_id: subscriberId,
    source,
    source_id: sourceId,
    forfait_id: forfaitId,
    data_limit_mb: offer.data_limit_mb,
    cir_kbps: offer.cir_kbps,
    mir_kbps: offer.mir_kbps,
    starts_at: clock.iso(nowMs),
    expires_at: clock.iso(nowMs + offer.duration_hours * 3600_000),
  };
}

/**
 * A new access code (a fresh random one: functions/billing/codes.ts) selling a forfait's offer,
 * nothing used on it yet. `also`: what its flow adds (a purchase's buyer and clock, a voucher's
 * price and status, a use-by date).
 */
export function newAccessCode(
  of: Pick<AccessCode, 'reseller_id' | 'source' | 'source_id' | 'forfait_id' | 'forfait_name' | 'offer'>,
  createdAt: string,
  also: Partial<AccessCode> = {},
  /** A voucher batch's own code length and prefix (functions/billing/codes.ts). */
  shape: { length?: number; prefix?: string } = {},
): AccessCode {
  return {
    code: newCode(shape.length, shape.prefix),
    ...of,
    ...also,
    created_at: createdAt,
    used_bytes: 0,
    devices: {},
    devices_version: 0,
  };
}

/**
 * A code's limits once a top-up of `offer` is added at `nowMs` (pure): its time grows by the
 * offer's duration, from its end, or from now when it has ended (a code never used yet: its
 * duration grows, counted from its first login); its data cap grows by the offer's data, and a
 * top-up without a cap lifts the code's (a code without a cap keeps none). Rates and devices
 * stay the code's own.
 */
export function toppedUp(
  code: AccessCode,
  offer: Offer,
  nowMs: number,
): Pick<AccessCode, 'offer' | 'expires_at'> {
  const uncapped = code.offer.data_limit_mb <= 0 || offer.data_limit_mb <= 0;
  const data_limit_mb = uncapped ? 0 : code.offer.data_limit_mb + offer.data_limit_mb;
  if (!code.expires_at) {
    const duration_hours = code.offer.duration_hours + offer.duration_hours;
    return { offer: { ...code.offer, duration_hours, data_limit_mb } };
  }
  const from = Math.max(Date.parse(code.expires_at), nowMs);
  return {
    offer: { ...code.offer, data_limit_mb },
    expires_at: clock.iso(from + offer.duration_hours * 3600_000),
  };
}

/**
 * A code's limits once a refunded top-up of `offer` is taken back (pure): its end moves back by
 * the offer's duration (a code never used: its duration shrinks), its data cap shrinks by the
 * offer's data, never to nothing (0 reads "no cap"). A cap the top-up lifted stays lifted.
 */
export function takenBack(code: AccessCode, offer: Offer): Pick<AccessCode, 'offer' | 'expires_at'> {
  const capped = code.offer.data_limit_mb > 0 && offer.data_limit_mb > 0;
  const data_limit_mb = capped
    ? Math.max(1, code.offer.data_limit_mb - offer.data_limit_mb)
    : code.offer.data_limit_mb;
  if (!code.expires_at) {
    const duration_hours = Math.max(0, code.offer.duration_hours - offer.duration_hours);
    return { offer: { ...code.offer, duration_hours, data_limit_mb } };
  }
  return {
    offer: { ...code.offer, data_limit_mb },
    expires_at: clock.iso(Date.parse(code.expires_at) - offer.duration_hours * 3600_000),
  };
}

/** A top-up's sale: the forfait added to a code, booked at the code's last hotspot. */
export const topupSale = (
  code: AccessCode,
  forfait: Pick<StoredForfait, 'id' | 'price_fcfa'>,
  paid: { channel: Channel; agent?: { id: string; commissionFcfa: number } },
): Sale => ({
  resellerId: code.reseller_id,
  forfaitId: forfait.id,
  ...(code.last_nas_id ? { nasId: code.last_nas_id } : {}),
  channel: paid.channel,
  amountFcfa: forfait.price_fcfa,
  ...(paid.agent ? { agent: paid.agent } : {}),
});

/** The provider's fee on a sale: PROVIDER_FEE_RATE of a mobile-money sale, nothing on cash or a voucher. */
export const providerFeeOf = (sale: Pick<Sale, 'channel' | 'amountFcfa'>): number =>
  sale.channel === 'mobile_money' ? Math.round(sale.amountFcfa * config().PROVIDER_FEE_RATE) : 0;

/**
 * The bookings of a sale made at `atIso`: its entry in the month's and the day's books (UTC),
 * for the transaction that makes it (named `monthBooks` and `dayBooks` there). `sign` -1: its refund, booked in the month and day of the
 * refund, every number the opposite of the sale's.
 */
export function bookings(
  sale: Sale,
  atIso: string,
  sign: 1 | -1 = 1,
): { monthBooks: TxItem; dayBooks: TxItem } {
  // Zero stays 0 (no -0 on the wire).
  const signed = (n: number) => (n === 0 ? 0 : sign * n);
  const entry = {
    amountFcfa: signed(sale.amountFcfa),
    count: sign,
    providerFeeFcfa: signed(providerFeeOf(sale)),
    commissionFcfa: signed(sale.agent?.commissionFcfa ?? 0),
    nasId: sale.nasId || NO_HOTSPOT,
    forfaitId: sale.forfaitId,
    channel: sale.channel,
    ...(sale.agent ? { agentId: sale.agent.id } : {}),
  };
  return {
    monthBooks: monthEntry(sale.resellerId, monthOf(atIso), entry),
    dayBooks: dayEntry(sale.resellerId, atIso.slice(0, 10), entry),
  };
}

/** An agent's cash sale of a new code (and its undo's, with sign -1): its price, its agent's commission. */
export const agentCashSale = (
  s: Pick<AgentSale, 'reseller_id' | 'forfait_id' | 'nas_id' | 'price_fcfa' | 'agent_id' | 'commission_fcfa'>,
): Sale => ({
  resellerId: s.reseller_id,
  forfaitId: s.forfait_id,
  ...(s.nas_id ? { nasId: s.nas_id } : {}),
  channel: 'cash',
  amountFcfa: s.price_fcfa,
  agent: { id: s.agent_id, commissionFcfa: s.commission_fcfa },
});

/** A completed payment's sale (and its refund's, with sign -1). */
export const paymentSale = (p: Payment): Sale => ({
  resellerId: p.reseller_id,
  forfaitId: p.forfait_id,
  ...(p.nas_id ? { nasId: p.nas_id } : {}),
  channel: 'mobile_money',
  amountFcfa: p.amount_fcfa,
});

/** A voucher's sale: redeemed through the API (no hotspot) or first used at a hotspot's router. */
export const voucherSale = (v: AccessCode, nasId?: string): Sale => ({
  resellerId: v.reseller_id,
  forfaitId: v.forfait_id,
  ...(nasId ? { nasId } : {}),
  channel: 'voucher',
  amountFcfa: v.price_fcfa ?? 0,
});

/**
 * The end of a plan's period begun at `startMs`: 7 days, or the next month's `day` (the
 * subscription's billing day, that of its first period: the month's last day when shorter), so
 * periods begun on the 31st end on the last day of each month, not drift to the 28th.
 */
function periodEnd(period: PlanPeriod, startMs: number, day: number): number {
  if (period === 'week') return startMs + 7 * 86_400_000;
  const d = new Date(startMs);
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + 1);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.getTime();
}

/**
 * The period a renewal paid at `nowMs` buys (pure): it follows the last one without a gap when
 * that one has not ended, or ended less than the plan's grace days ago (the subscriber kept the
 * service meanwhile); else it starts now. `counting`: where the subscriber's data counting
 * starts (a period paid ahead leaves the current one's counting as it is).
 */
export function nextPeriod(
  sub: Pick<PppoeSubscriber, 'paid_until' | 'period_started_at' | 'billing_day'>,
  plan: Pick<PppoePlan, 'period' | 'grace_days'>,
  nowMs: number,
): { starts_at: string; ends_at: string; counting: string; billing_day: number } {
  const last = sub.paid_until ? Date.parse(sub.paid_until) : undefined;
  const follows = last !== undefined && nowMs <= last + plan.grace_days * 86_400_000;
  const start = follows ? (last as number) : nowMs;
  // A period that follows keeps the billing day; one begun anew begins its own.
  const billing_day = (follows && sub.billing_day) || new Date(start).getUTCDate();
  const ahead = start > nowMs && sub.period_started_at !== undefined;
  return {
    starts_at: clock.iso(start),
    ends_at: clock.iso(periodEnd(plan.period, start, billing_day)),
    counting: ahead ? (sub.period_started_at as string) : clock.iso(start),
    billing_day,
  };
}

/**
 * A PPPoE subscription's period sold (by cash at the console, or by a mobile-money payment):
 * the period's record and the subscriber moved to it (functions/store/pppoe.ts: conditioned on
 * the periods it had when read, so each period is sold once whatever races it) and the sale's
 * bookings, booked at the subscriber's first hotspot under the plan's id. The items of one
 * transaction, to which the flow adds its own (a payment's completion).
 */
export function periodSold(
  sub: PppoeSubscriber,
  plan: PppoePlan,
  paid: { channel: 'cash' | 'mobile_money'; paymentId?: string },
  nowMs: number,
): { renewal: PppoeRenewal; items: Record<string, TxItem> } {
  const at = clock.iso(nowMs);
  const period = nextPeriod(sub, plan, nowMs);
  const renewal: PppoeRenewal = {
    subscriber_id: sub.id,
    period: sub.periods + 1,
    reseller_id: sub.reseller_id,
    plan_id: plan.id,
    starts_at: period.starts_at,
    ends_at: period.ends_at,
    channel: paid.channel,
    amount_fcfa: plan.price_fcfa,
    ...(paid.paymentId ? { payment_id: paid.paymentId } : {}),
    at,
  };
  const sale: Sale = {
    resellerId: sub.reseller_id,
    forfaitId: plan.id,
    ...(sub.nas_ids[0] ? { nasId: sub.nas_ids[0] } : {}),
    channel: paid.channel,
    amountFcfa: plan.price_fcfa,
  };
  return {
    renewal,
    items: {
      ...renewalItems(sub, renewal, { period_started_at: period.counting, billing_day: period.billing_day }),
      ...bookings(sale, at),
    },
  };
}
