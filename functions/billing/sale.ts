import { clock } from '../core/clock.js';
import { type Country, type Currency, currencyOf } from '../core/currency.js';
import type { Entitlement } from '../store/entitlements.js';
import type { Forfait, Offer } from '../store/forfaits.js';
import { getReseller } from '../store/resellers.js';
import { UNATTRIBUTED } from '../store/revenue.js';
import { billingSettings } from './settings.js';

/**
 * What every sale shares, whatever sold it (a payment, a voucher) or reads it (the summary):
 * the entitlement it grants, the currency it is in (the month it counts in: core/clock.ts).
 */

/** The entitlement a forfait grants from now. */
export function grant(
  subscriberId: string,
  forfait: Pick<Forfait, 'id'> & Offer,
  source: Entitlement['source'],
  sourceId: string,
  nowMs: number,
): Entitlement {
  return {
    id: source === 'payment' ? sourceId : `V-${sourceId}`,
    subscriber_id: subscriberId,
    source,
    source_id: sourceId,
    forfait_id: forfait.id,
    data_limit_mb: forfait.data_limit_mb,
    cir_kbps: forfait.cir_kbps,
    mir_kbps: forfait.mir_kbps,
    starts_at: clock.iso(nowMs),
    expires_at: clock.iso(nowMs + forfait.duration_hours * 3600_000),
  };
}

/** The country a reseller sells in: its own, else DEFAULT_COUNTRY. */
export async function resellerCountry(resellerId: string): Promise<Country> {
  const profile = resellerId.startsWith(UNATTRIBUTED) ? undefined : await getReseller(resellerId);
  return profile?.country ?? billingSettings().DEFAULT_COUNTRY;
}

/** The currency a reseller sells in: its country's, else DEFAULT_COUNTRY's. */
export async function resellerCurrency(resellerId: string): Promise<Currency> {
  return currencyOf(await resellerCountry(resellerId));
}
