// An access entitlement's record: what a completed payment or a redeemed voucher granted.

import { entity } from './entity.js';

/**
 * An access entitlement: what a completed payment or a redeemed voucher grants a subscriber
 * (duration, data limit, rates), exactly as the API returns it. What the network enforces is
 * its access code (store/access-codes.ts); open sessions are counted by RADIUS accounting. The
 * API's entitlement schema is checked against it (test/unit/store-records.test.ts).
 */
export interface Entitlement {
  id: string;
  subscriber_id: string;
  source: 'payment' | 'voucher';
  /** The payment or the voucher that granted it. */
  source_id: string;
  forfait_id: string;
  data_limit_mb: number;
  cir_kbps: number;
  mir_kbps: number;
  starts_at: string;
  expires_at: string;
}

/** Kept this long after expiry before DynamoDB's TTL removes it (history for support). */
const KEEP_AFTER_EXPIRY_S = 30 * 24 * 3600;

/**
 * Written once, inside the transaction that settles a payment or redeems a voucher (its
 * `tx.create`); beside the subscriber's other items.
 */
export const EntitlementEntity = entity<Entitlement>('entitlement')({
  key: (e: Pick<Entitlement, 'subscriber_id' | 'id'>) => ({
    pk: `SUB#${e.subscriber_id}`,
    sk: `ENT#${e.id}`,
  }),
  ttl: (e) => Math.floor(Date.parse(e.expires_at) / 1000) + KEEP_AFTER_EXPIRY_S,
  ttlFrom: ['expires_at'],
});
