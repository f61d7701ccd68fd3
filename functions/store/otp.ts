import type { Role } from '../core/tokens.js';
import { AccountEntity, type StoredAccount } from './accounts.js';
import { batchGet, cancelled, type Expr, notExists, transact } from './entity.js';
import { planToken, RateLimiter, type RatePlan, type RateWindow, takeSlotTx } from './rate-limit.js';

/**
 * The one-time password of an account lives on the account item (keyed by MSISDN), next to the
 * account's UUID that its hash is bound to: an OTP request is then one read and one transaction,
 * a verification one read and one conditional write. A new code replaces the old one but keeps
 * the failure count, so resending buys no extra guesses.
 */
export interface OtpState {
  accountId: string;
  role: Role;
  resellerId?: string;
  otpToken?: string;
  codeHash?: string;
  /** Epoch ms after which the code is refused (checked in code; TTL does not apply here). */
  expiresAt?: number;
  used: boolean;
  /** Undefined: the account never had a code. */
  fails: number | undefined;
  lastFailAt?: number;
}

const stateOf = (a: StoredAccount): OtpState => ({
  accountId: a.id,
  role: a.role,
  resellerId: a.reseller_id,
  otpToken: a.otp_token,
  codeHash: a.otp_hash,
  expiresAt: a.otp_expires_at,
  used: a.otp_used === true,
  fails: a.otp_fails,
  lastFailAt: a.otp_last_fail_at,
});

/** The rate limiter and the account (with its OTP) of an MSISDN, in one strongly consistent read. */
// Access: BatchGetItem (ConsistentRead) pk=RATE#<scope>#<msisdn> and pk=ACCOUNT#<msisdn>.
export async function readForRequest(
  w: RateWindow,
  msisdn: string,
  nowMs: number,
): Promise<{ plan: RatePlan; account: OtpState | undefined }> {
  const [limiter, account] = await batchGet(
    [
      [RateLimiter, { scope: w.scope, subject: msisdn }],
      [AccountEntity, { msisdn }],
    ],
    { consistent: true },
  );
  return { plan: planToken(limiter, w, nowMs), account: account && stateOf(account) };
}

/** A transaction lost to a concurrent one: every item either passed, failed its condition or was held. */
const RACE_REASONS = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict']);

/**
 * Takes the rate-limit slot and stores the new code in one transaction: both or neither. Each
 * write is conditioned on what was read (the slot's value; the account's absence or its failure
 * count), so a race with another request or a wrong guess cancels it: false, read again.
 */
// Access: TransactWriteItems [UpdateItem RATE slot (condition on value read), UpdateItem ACCOUNT#<msisdn> (condition on otp_fails read)].
export async function issueOtp(input: {
  window: RateWindow;
  msisdn: string;
  plan: { slot: number; taken: number | undefined };
  nowMs: number;
  /** The account as read; undefined creates it as a subscriber with `accountId`. */
  read: OtpState | undefined;
  accountId: string;
  otpToken: string;
  codeHash: string;
  expiresAt: number;
  fails: number;
  createdAt: string;
}): Promise<boolean> {
  const asRead: Expr = !input.read
    ? notExists
    : input.read.fails === undefined
      ? { expression: 'attribute_not_exists(otp_fails)' }
      : { expression: 'otp_fails = :expect', values: { ':expect': input.read.fails } };
  try {
    await transact({
      slot: takeSlotTx(input.window, input.msisdn, input.plan, input.nowMs),
      account: AccountEntity.tx.update(
        { msisdn: input.msisdn },
        {
          expression:
            'SET #id = if_not_exists(#id, :id), msisdn = :m, #role = if_not_exists(#role, :role), ' +
            'created_at = if_not_exists(created_at, :now), entity = :entity, otp_token = :tok, ' +
            'otp_hash = :h, otp_expires_at = :exp, otp_used = :false, otp_fails = :fails',
          names: { '#id': 'id', '#role': 'role' },
          values: {
            ':id': input.accountId,
            ':m': input.msisdn,
            ':role': 'subscriber',
            ':now': input.createdAt,
            ':entity': AccountEntity.name,
            ':tok': input.otpToken,
            ':h': input.codeHash,
            ':exp': input.expiresAt,
            ':false': false,
            ':fails': input.fails,
          },
        },
        asRead,
      ),
    });
    return true;
  } catch (error) {
    const c = cancelled<'slot' | 'account'>(error);
    if (c && Object.values<string>(c.reasons).every((r) => RACE_REASONS.has(r))) return false;
    throw error;
  }
}

/** The account of an MSISDN with its current code, read strongly consistent. */
// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (ConsistentRead).
export async function readForVerify(msisdn: string): Promise<OtpState | undefined> {
  const account = await AccountEntity.get({ msisdn }, { consistent: true });
  return account && stateOf(account);
}

/**
 * Marks the code used. Single use: the condition lets exactly one of many parallel verifies of
 * the same code through; it also refuses a code replaced or burnt meanwhile.
 */
// Access: conditional UpdateItem pk=ACCOUNT#<msisdn> (otp_token matches, unused, otp_fails < max).
export const consumeOtp = (msisdn: string, otpToken: string, maxFails: number): Promise<boolean> =>
  AccountEntity.update(
    { msisdn },
    {
      expression: 'SET otp_used = :true, otp_fails = :zero REMOVE otp_last_fail_at',
      values: { ':true': true, ':zero': 0 },
    },
    {
      expression: 'otp_token = :tok AND otp_used = :false AND otp_fails < :max',
      values: { ':false': false, ':tok': otpToken, ':max': maxFails },
    },
  );

/** Counts a wrong guess against the code that was read; returns the new failure count. */
// Access: UpdateItem pk=ACCOUNT#<msisdn>, ADD otp_fails 1 (atomic counter) if otp_token still matches.
export async function recordFailure(msisdn: string, otpToken: string, nowMs: number): Promise<number> {
  const account = await AccountEntity.updateReturning(
    { msisdn },
    { expression: 'ADD otp_fails :one SET otp_last_fail_at = :now', values: { ':one': 1, ':now': nowMs } },
    { expression: 'otp_token = :tok', values: { ':tok': otpToken } },
  );
  // Undefined: the code was replaced meanwhile, and the guess counts against nothing.
  return account?.otp_fails ?? 0;
}
