// "Payé, pas connecté": completed payments whose code had no login, flagged for the reseller, and the code sent again.

import { assertActsFor, resellerInScope } from '../core/access.js';
import { clock } from '../core/clock.js';
import { AppError, notFound } from '../core/errors.js';
import { countMetric } from '../core/metrics.js';
import type { OperatorPrincipal } from '../core/principal.js';
import { takeResellerSms } from '../sms/reseller-sms.js';
import { type AccessCode, getAccessCode } from '../store/access-codes.js';
import {
  countCodeResend,
  flagUnusedPayment,
  listUnusedPayments,
  MAX_CODE_RESENDS,
  uncountCodeResend,
} from '../store/paid-not-connected.js';
import { listCompletedBetween } from '../store/payment-checks.js';
import { getPayment } from '../store/payments.js';
import { paidCodeText } from './sms-texts.js';

/**
 * "Payé, pas connecté": a buyer whose money was taken and whose code never reached a router is
 * the complaint resellers hear most. A completed payment whose code has no login
 * UNUSED_AFTER_MS after the completion is flagged for its reseller (and counted as the
 * `PaidNotConnected` metric); the reseller sees the flags and can text the code again.
 */
export const UNUSED_AFTER_MS = 15 * 60_000;
/**
 * How far back each run looks, beyond the 15 minutes: a run missed (deploy, throttling) is
 * caught up by the next ones. Completions are read by hour bucket, so this costs about two
 * Queries a run.
 */
const LOOKBACK_MS = 60 * 60_000;

/** A code was used once a router logged a device in with it. */
const used = (code: AccessCode | undefined): boolean =>
  !code || !!code.last_login_at || Object.keys(code.devices ?? {}).length > 0;

async function codesOf(codes: string[]): Promise<Map<string, AccessCode | undefined>> {
  const out = new Map<string, AccessCode | undefined>();
  for (let i = 0; i < codes.length; i += 16) {
    const slice = codes.slice(i, i + 16);
    const read = await Promise.all(slice.map((c) => getAccessCode(c)));
    slice.forEach((c, j) => {
      out.set(c, read[j]);
    });
  }
  return out;
}

export interface UnusedRunCounts extends Record<string, number> {
  /** Completed payments in the window. */
  completed: number;
  /** Of those, flagged by this run (each counted once, whatever the runs overlapping). */
  flagged: number;
}

/** One run of the job: completions between 75 and 15 minutes ago whose code has no login. */
export async function flagPaidNotConnected(nowMs: number): Promise<UnusedRunCounts> {
  const to = new Date(nowMs - UNUSED_AFTER_MS).toISOString();
  const from = new Date(nowMs - UNUSED_AFTER_MS - LOOKBACK_MS).toISOString();
  const completed = await listCompletedBetween(from, to);
  const candidates = completed.filter((p) => !p.unused_flagged_at && p.access_code);
  const codes = await codesOf(candidates.map((p) => p.access_code as string));
  const nowIso = new Date(nowMs).toISOString();
  let flagged = 0;
  for (const p of candidates) {
    if (used(codes.get(p.access_code as string))) continue;
    if (await flagUnusedPayment(p, nowIso)) flagged += 1;
  }
  if (flagged) countMetric('PaidNotConnected', flagged);
  return { completed: completed.length, flagged };
}

/** A reseller's flagged payments, each with whether its code is still unused now. */
export async function unusedPaymentsOf(principal: OperatorPrincipal, asked: string | undefined) {
  const resellerId = resellerInScope(principal, asked);
  const flags = await listUnusedPayments(resellerId, 100);
  const codes = await codesOf(flags.map((f) => f.access_code));
  const payments = await Promise.all(flags.map((f) => getPayment(f.payment_id)));
  return {
    items: flags.map((f, i) => ({
      payment_id: f.payment_id,
      completed_at: f.completed_at,
      flagged_at: f.flagged_at,
      forfait_name: f.forfait_name,
      amount_fcfa: f.amount_fcfa,
      nas_id: f.nas_id ?? null,
      msisdn: f.msisdn ?? null,
      access_code: f.access_code,
      /** False once the code was used after all (the buyer found it). */
      paid_not_connected: !used(codes.get(f.access_code)),
      code_resends: payments[i]?.code_resends ?? 0,
      resends_left: Math.max(0, MAX_CODE_RESENDS - (payments[i]?.code_resends ?? 0)),
    })),
  };
}

/**
 * Texts a completed payment's code to its buyer again (owning reseller or admin), at most
 * MAX_CODE_RESENDS times. 404 for a payment not the caller's, 409 for one without a code or
 * number, 429 past the limit, 503 when the SMS could not go (the resend is not counted).
 */
export async function resendCode(principal: OperatorPrincipal, paymentId: string) {
  const payment = await getPayment(paymentId);
  if (!payment) throw notFound('Payment');
  try {
    assertActsFor(principal, payment.reseller_id);
  } catch {
    // Another reseller's payment: its existence does not leak.
    throw notFound('Payment');
  }
  if (payment.status !== 'completed' || !payment.access_code || !payment.msisdn)
    throw new AppError('ERR_CONFLICT', 'This payment has no access code to send');
  // The reseller's SMS budgets first (429 past one), then the payment's own count of resends.
  const sms = await takeResellerSms(payment.reseller_id, payment.msisdn, clock.now());
  if (!(await countCodeResend(payment.id))) {
    await sms.giveBack();
    throw new AppError('ERR_RATE_LIMITED', `The code was already sent again ${MAX_CODE_RESENDS} times`);
  }
  try {
    await sms.send(await paidCodeText(payment, payment.access_code));
  } catch {
    await uncountCodeResend(payment.id);
    throw new AppError('ERR_UNAVAILABLE', 'The SMS could not be sent; try again');
  }
  const after = await getPayment(payment.id);
  const resends = after?.code_resends ?? 1;
  return {
    payment_id: payment.id,
    code_resends: resends,
    resends_left: Math.max(0, MAX_CODE_RESENDS - resends),
  };
}
