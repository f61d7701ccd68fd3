// A subscriber erased on request: the records that name the number removed or made anonymous.

import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { log } from '../core/log.js';
import { allCodesOf } from '../store/access-codes.js';
import { deleteSubscriberAccount, readAccount, recordErasure } from '../store/accounts.js';
import { deleteDevice, devicesOfAccount } from '../store/devices.js';
import { bindingsOfCode, forgetMac } from '../store/mac-bindings.js';
import { forgetFlagMsisdn } from '../store/paid-not-connected.js';
import { forgetPaymentMsisdn, paymentIdsOfSubscriber } from '../store/payments.js';
import { deleteLimiter } from '../store/rate-limit.js';
import { PER_NUMBER_SCOPES } from './otp-budgets.js';
import { SESSION_TTL_SECONDS } from './tokens.js';

/** What an erasure removed or changed, record by record. */
export interface Erasure {
  /** The account (and the one-time password on it). */
  account: boolean;
  /** Remembered-device credentials (the portal's 30-day renewal of a session). */
  devices: number;
  /** MAC bindings of the subscriber's codes (MAC login). */
  mac_bindings: number;
  /** Payments whose number was taken off (amount, dates, reseller and reference kept). */
  payments: number;
  /** "Paid, not connected" flags whose number was taken off. */
  flags: number;
  /** Per-number OTP limiters. */
  limits: number;
}

/**
 * Erases a subscriber (docs/decisions.md, "Erasing a subscriber"): its account and one-time
 * password, its device credentials and MAC bindings, its per-number limiters, and its number on
 * every payment and flag, which stay for the books without it. The account goes last: it is
 * what finds the rest, so an erasure interrupted half-way is finished by running it again.
 * Undefined when the number has no account (erased already, or never seen). An operator's
 * account is refused (409): it is removed as an operator first (`accounts remove`).
 */
export async function eraseSubscriber(msisdn: string): Promise<Erasure | undefined> {
  const account = await readAccount(msisdn);
  if (!account) return undefined;
  if (account.role !== 'subscriber') {
    throw new AppError('ERR_CONFLICT', 'This number is an operator account: remove it as an operator first');
  }
  const done: Erasure = { account: false, devices: 0, mac_bindings: 0, payments: 0, flags: 0, limits: 0 };

  for (const d of await devicesOfAccount(account.id)) if (await deleteDevice(d.hash)) done.devices++;

  const codes = await allCodesOf(account.id);
  for (const code of codes)
    for (const b of await bindingsOfCode(code.code)) if (await forgetMac(b)) done.mac_bindings++;

  // Its payments: those the index lists, and those of before it, through the codes they made.
  const paymentIds = new Set([
    ...(await paymentIdsOfSubscriber(account.id)),
    ...codes.flatMap((c) => (c.source === 'payment' ? [c.source_id] : [])),
  ]);
  for (const id of paymentIds) {
    const { payment, changed } = await forgetPaymentMsisdn(id);
    if (changed) done.payments++;
    // Its flag too (checked even when the payment's number was gone: an erasure run again).
    if (payment?.unused_flagged_at && (await forgetFlagMsisdn(payment))) done.flags++;
  }

  for (const scope of PER_NUMBER_SCOPES) if (await deleteLimiter(scope, msisdn)) done.limits++;
  // Before the account goes: from then on its live session tokens are refused (tokens.ts), so
  // none can carry the number into a new payment. Kept for the longest a token lives.
  await recordErasure(account.id, clock.nowSeconds() + SESSION_TTL_SECONDS + 60);
  done.account = await deleteSubscriberAccount(msisdn, account.id);
  log.info('subscriber erased', { ...done, accountId: account.id });
  return done;
}
