// A code topped up: whether it may be, with which forfait, and the answer a top-up gives.

import { assertOwns } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import type { OperatorPrincipal } from '../core/principal.js';
import { normalizeCode } from '../radius/attributes.js';
import { type AccessCode, accessCodeExtend, getAccessCode } from '../store/access-codes.js';
import type { StoredForfait } from '../store/forfaits.js';
import { untilSettled } from '../store/retry.js';
import { transactIfCurrent } from '../store/transact.js';
import { bookings, forfaitForSale, offerOf, toppedUp, topupSale } from './ledger.js';

/*
 * A top-up: a forfait added to a live code, sold like any forfait (its price booked by the
 * ledger). The code's limits grow (functions/billing/ledger.ts, `toppedUp`); the RADIUS side
 * reads them at the code's next login (docs/billing.md, "Top-ups").
 */

/**
 * Throws 409 `ERR_CODE_NOT_LIVE` unless the code may be topped up at `nowMs`: not revoked (nor
 * refunded), sold (a printed voucher not yet redeemed or used is stock, not a guest's code), and
 * not past its use-by date unused. A code whose time or data is used up is live: a top-up
 * brings it back.
 */
export function assertLive(code: AccessCode, nowMs: number): void {
  const why = code.revoked_at
    ? 'This code was revoked'
    : code.voucher_status === 'active'
      ? 'This voucher was never used: sell it as it is'
      : !code.started_at && code.use_by && Date.parse(code.use_by) <= nowMs
        ? 'This code was never used and is past its use-by date'
        : undefined;
  if (why) throw new AppError('ERR_CODE_NOT_LIVE', why);
}

/** The forfait a top-up of this code sells: one on sale at the code's last hotspot (or any of its reseller's, before its first login). */
export const topupForfait = (code: AccessCode, forfaitId: string): Promise<StoredForfait> =>
  forfaitForSale(forfaitId, {
    resellerId: code.reseller_id,
    ...(code.last_nas_id ? { nasId: code.last_nas_id } : { anyHotspot: true }),
  });

/** What a top-up answers: the code's limits after it. */
export const toppedUpView = (
  code: AccessCode,
  forfait: StoredForfait,
  next: ReturnType<typeof toppedUp>,
) => ({
  code: code.code,
  forfait_id: forfait.id,
  forfait_name: forfait.name,
  price_fcfa: forfait.price_fcfa,
  duration_hours: next.offer.duration_hours,
  data_limit_mb: next.offer.data_limit_mb,
  ...(next.expires_at ? { expires_at: next.expires_at } : {}),
  topups: (code.topups ?? 0) + 1,
});

/** Read-then-write attempts of one top-up: each loses only to a login or another top-up of the code. */
const TOPUP_ATTEMPTS = 40;

export const tooBusy = () =>
  new AppError('ERR_UNAVAILABLE', 'This code is busy: try again', { headers: { 'retry-after': '1' } });

/**
 * A reseller (or an admin) tops up one of its codes, paid to it in cash: one transaction writes
 * the code's new limits (while it is as read and not revoked) and the sale's bookings. A login
 * or another top-up between the read and the write: read again, so parallel top-ups all count.
 */
export async function topUpCode(principal: OperatorPrincipal, typed: string, forfaitId: string) {
  let forfait: StoredForfait | undefined;
  return untilSettled(
    async () => {
      const code = await getAccessCode(normalizeCode(typed));
      assertOwns(principal, code, 'Code');
      const nowMs = clock.now();
      assertLive(code, nowMs);
      forfait ??= await topupForfait(code, forfaitId);
      const at = clock.iso(nowMs);
      const next = toppedUp(code, offerOf(forfait), nowMs);
      const { monthBooks, dayBooks } = bookings(topupSale(code, forfait, { channel: 'counter' }), at);
      const items = { code: accessCodeExtend(code, next, at), monthBooks, dayBooks };
      return (await transactIfCurrent(items, 'code')) ? toppedUpView(code, forfait, next) : undefined;
    },
    () => {
      throw tooBusy();
    },
    TOPUP_ATTEMPTS,
  );
}
