// "Payé, pas connecté" records: a completed payment whose code had no login, flagged, listed, and its code resends counted.

import { allOf, cancelled, entity, exists, transact } from './entity.js';
import { type Payment, PaymentEntity } from './payments.js';

/**
 * "Payé, pas connecté": a completed payment whose access code had no login 15 minutes after
 * the completion. One item per flagged payment in its reseller's partition (a Query of the
 * primary key lists them, newest first; no index needed), written with the payment's own flag
 * in one transaction, so a payment is flagged, and counted, once.
 */
export interface PaidNotConnected {
  reseller_id: string;
  payment_id: string;
  completed_at: string;
  flagged_at: string;
  access_code: string;
  forfait_name: string;
  amount_fcfa: number;
  nas_id?: string;
  /** The buyer's number (E.164), for the reseller who calls back. */
  msisdn?: string;
}

/** Flags are kept as long as a reseller looks back at a month's complaints, and then some. */
const KEEP_S = 90 * 24 * 3600;

export const UnusedPayment = entity<PaidNotConnected>('paid_not_connected')({
  key: (u: Pick<PaidNotConnected, 'reseller_id' | 'completed_at' | 'payment_id'>) => ({
    pk: `RESELLER#${u.reseller_id}#PAIDNOTCONNECTED`,
    sk: `${u.completed_at}#${u.payment_id}`,
  }),
  ttl: (u) => Math.floor(Date.parse(u.flagged_at) / 1000) + KEEP_S,
});

/** At most this many re-texts of a payment's code (each one costs an SMS). */
export const MAX_CODE_RESENDS = 3;

/**
 * Flags a completed payment whose code was never used: true when this call flagged it, false
 * when it was flagged already or is no longer completed (refunded meanwhile).
 */
// Access: TransactWriteItems [Update PAYMENT#<id> SET unused_flagged_at, condition status = completed AND attribute_not_exists(unused_flagged_at); Put RESELLER#<r>#PAIDNOTCONNECTED/<completed_at>#<id> attribute_not_exists(pk)].
export async function flagUnusedPayment(p: Payment, nowIso: string): Promise<boolean> {
  if (!p.access_code || !p.completed_at) return false;
  try {
    await transact({
      payment: PaymentEntity.tx.update(
        { id: p.id },
        { set: { unused_flagged_at: nowIso } },
        allOf(PaymentEntity.where.is('status', 'completed'), PaymentEntity.where.lacks('unused_flagged_at')),
      ),
      flag: UnusedPayment.tx.create({
        reseller_id: p.reseller_id,
        payment_id: p.id,
        completed_at: p.completed_at,
        flagged_at: nowIso,
        access_code: p.access_code,
        forfait_name: p.forfait_name,
        amount_fcfa: p.amount_fcfa,
        ...(p.nas_id ? { nas_id: p.nas_id } : {}),
        ...(p.msisdn ? { msisdn: p.msisdn } : {}),
      }),
    });
    return true;
  } catch (error) {
    if (cancelled(error)) return false;
    throw error;
  }
}

/** A reseller's flagged payments, newest first (at most `limit`). */
// Access: Query pk=RESELLER#<r>#PAIDNOTCONNECTED, descending, Limit.
export async function listUnusedPayments(resellerId: string, limit: number): Promise<PaidNotConnected[]> {
  const { pk } = UnusedPayment.key({ reseller_id: resellerId, completed_at: '', payment_id: '' });
  const page = await UnusedPayment.query({ pk, forward: false, limit });
  return page.items;
}

/**
 * Counts one re-text of a completed payment's code: false past MAX_CODE_RESENDS (or when the
 * payment is not completed with a code). Counted before the SMS goes: two parallel resends
 * cannot both pass the last one.
 */
// Access: UpdateItem pk=PAYMENT#<id> ADD code_resends 1, condition status = completed AND access_code exists AND code_resends < max.
export const countCodeResend = (id: string): Promise<boolean> =>
  PaymentEntity.update(
    { id },
    { add: { code_resends: 1 } },
    allOf(
      PaymentEntity.where.is('status', 'completed'),
      PaymentEntity.where.has('access_code'),
      PaymentEntity.where.lacksOr(
        'code_resends',
        PaymentEntity.where.compare('code_resends', '<', MAX_CODE_RESENDS),
      ),
    ),
  );

/** Gives back a counted re-text whose SMS could not be sent. */
// Access: UpdateItem pk=PAYMENT#<id> ADD code_resends -1, condition attribute_exists(pk).
export const uncountCodeResend = async (id: string): Promise<void> => {
  await PaymentEntity.update({ id }, { add: { code_resends: -1 } }, exists);
};

/** Takes the buyer's number off a payment's flag (an erased subscriber). False when there was none. */
// Access: UpdateItem pk=RESELLER#<r>#PAIDNOTCONNECTED sk=<completed_at>#<payment_id> REMOVE msisdn (condition attribute_exists(msisdn)).
export const forgetFlagMsisdn = (
  p: Pick<Payment, 'reseller_id' | 'completed_at' | 'id'>,
): Promise<boolean> =>
  p.completed_at
    ? UnusedPayment.update(
        { reseller_id: p.reseller_id, completed_at: p.completed_at, payment_id: p.id },
        { set: { msisdn: undefined } },
        UnusedPayment.where.has('msisdn'),
      )
    : Promise.resolve(false);
