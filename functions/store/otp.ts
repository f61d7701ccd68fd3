// The OTP on the account item and the limits and budgets it is taken under: read, issued, guessed, consumed in transactions.

import type { Role } from '../core/principal.js';
import { AccountEntity, type StoredAccount } from './accounts.js';
import { allOf, batchGet, cancelled, type Expr, notExists, type TxItem, transact } from './entity.js';
import {
  type BudgetCount,
  type BudgetPlan,
  type BudgetWindow,
  planBudget,
  planToken,
  RateBudget,
  RateLimiter,
  type RatePlan,
  type RateSlots,
  type RateWindow,
  takeBudgetTx,
  takeSlotTx,
  windowStartOf,
} from './rate-limit.js';

/**
 * The one-time password of an account lives on the account item (keyed by MSISDN), next to the
 * account's UUID that its hash is bound to: an OTP request is then one read and one transaction,
 * a verification one read and one conditional write or two. A new code replaces the old one and
 * starts its own count of guesses (`otp_guesses` allowed, `otp_fails` made): a wrong guess burns
 * at most the code it was made at.
 */
export interface OtpState {
  accountId: string;
  role: Role;
  resellerId?: string;
  /** The agent record an agent's account stands for (functions/store/agents.ts). */
  agentId?: string;
  /** The account's token version: what a session token signed now carries. */
  tokenVersion: number;
  otpToken?: string;
  codeHash?: string;
  /** Epoch ms after which the code is refused (checked in code; TTL does not apply here). */
  expiresAt?: number;
  used: boolean;
  /** Undefined: the account never had a code. */
  fails: number | undefined;
  /** Guesses the current code may be compared against (`OTP.maxFails`, fewer after a burnt one). */
  guesses: number;
  lastFailAt?: number;
  /** A code of it was verified once (a subscriber created by an OTP request is not, until then). */
  verified: boolean;
}

const stateOf = (a: StoredAccount): OtpState => ({
  accountId: a.id,
  role: a.role,
  resellerId: a.reseller_id,
  ...(a.agent_id ? { agentId: a.agent_id } : {}),
  tokenVersion: a.token_version ?? 0,
  otpToken: a.otp_token,
  codeHash: a.otp_hash,
  expiresAt: a.otp_expires_at,
  used: a.otp_used === true,
  fails: a.otp_fails,
  guesses: a.otp_guesses ?? 5,
  lastFailAt: a.otp_last_fail_at,
  // Operators are registered, not created by a login; subscribers of before `verified_at` were
  // verified by the login that created them or are not: their next verification says so.
  verified: a.role !== 'subscriber' || a.verified_at !== undefined,
});

/** One sliding-window limit and whom it limits (an MSISDN, a client address). */
export interface Limit {
  window: RateWindow;
  subject: string;
}

/** One fixed-window budget and whom it limits (`ALL`: the platform). */
export interface Budget {
  window: BudgetWindow;
  subject: string;
}

/** A limit (or budget) as read: its plan, and what taking it writes. */
export interface Planned {
  limit: Limit | Budget;
  plan: RatePlan | BudgetPlan;
}

type Refused = Extract<RatePlan | BudgetPlan, { allowed: false }>;

/** The first refusal among planned limits, or undefined when every one allows the event. */
export const refusal = (planned: Planned[]): Refused | undefined =>
  planned.map((p) => p.plan).find((p): p is Refused => !p.allowed);

/** The scopes of the planned limits that refuse the event. */
export const refusedScopes = (planned: Planned[]): string[] =>
  planned.filter((p) => !p.plan.allowed).map((p) => p.limit.window.scope);

/** The transaction items that take every planned limit, named by scope (`limit:<scope>`). */
function takeTx(planned: Planned[], nowMs: number): Record<string, TxItem> {
  const items: Record<string, TxItem> = {};
  for (const { limit, plan } of planned) {
    if (!plan.allowed) throw new Error(`limit ${limit.window.scope} is not allowed`);
    items[`limit:${limit.window.scope}`] =
      'windowStart' in plan
        ? takeBudgetTx(limit.window as BudgetWindow, limit.subject, plan.windowStart)
        : takeSlotTx(limit.window as RateWindow, limit.subject, plan, nowMs);
  }
  return items;
}

/**
 * The limits and budgets of an event and the account of an MSISDN, in one strongly consistent
 * BatchGetItem, each planned for `nowMs`.
 */
// Access: BatchGetItem (ConsistentRead) pk=RATE#<scope>#<subject> per limit, pk=BUDGET#<scope>#<subject> sk=WINDOW#<start> per budget, and pk=ACCOUNT#<msisdn>.
export async function readLimitsAndAccount(
  limits: Limit[],
  budgets: Budget[],
  msisdn: string,
  nowMs: number,
): Promise<{ planned: Planned[]; account: OtpState | undefined }> {
  const reads = [
    ...limits.map((l) => [RateLimiter, { scope: l.window.scope, subject: l.subject }] as const),
    ...budgets.map(
      (b) =>
        [
          RateBudget,
          { scope: b.window.scope, subject: b.subject, windowStart: windowStartOf(b.window, nowMs) },
        ] as const,
    ),
    [AccountEntity, { msisdn }] as const,
  ];
  const read = (await batchGet(reads, { consistent: true })) as unknown[];
  const planned: Planned[] = [
    ...limits.map((limit, i) => ({
      limit,
      plan: planToken(read[i] as RateSlots | undefined, limit.window, nowMs),
    })),
    ...budgets.map((limit, i) => ({
      limit,
      plan: planBudget(read[limits.length + i] as { n?: number } | undefined, limit.window, nowMs),
    })),
  ];
  const account = read[read.length - 1] as StoredAccount | undefined;
  return { planned, account: account && stateOf(account) };
}

/** The counts of several budgets' current windows (0 for a window not started), strongly consistent. */
// Access: BatchGetItem (ConsistentRead) pk=BUDGET#<scope>#<subject> sk=WINDOW#<start> per budget.
export async function readBudgetCounts(budgets: Budget[], nowMs: number): Promise<number[]> {
  const read = (await batchGet(
    budgets.map(
      (b) =>
        [
          RateBudget,
          { scope: b.window.scope, subject: b.subject, windowStart: windowStartOf(b.window, nowMs) },
        ] as const,
    ),
    { consistent: true },
  )) as (BudgetCount | undefined)[];
  return read.map((c) => c?.n ?? 0);
}

/** A transaction lost to a concurrent one: every item either passed, failed its condition or was held. */
const RACE_REASONS = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict']);

async function raced(run: () => Promise<void>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    const c = cancelled(error);
    if (c && Object.values<string>(c.reasons).every((r) => RACE_REASONS.has(r))) return false;
    throw error;
  }
}

/**
 * Takes every limit and budget and stores the new code in one transaction: all or nothing. Each
 * write is conditioned on what was read (a slot's value; a budget below its limit; the
 * account's absence or its failure count), so a race with another request or a wrong guess
 * cancels it: false, read again.
 */
// Access: TransactWriteItems [UpdateItem RATE slot per limit (condition on value read), UpdateItem BUDGET counter per budget (condition n < limit), UpdateItem ACCOUNT#<msisdn> (condition on otp_fails read)].
export function issueOtp(input: {
  planned: Planned[];
  msisdn: string;
  nowMs: number;
  /** The account as read; undefined creates it as a subscriber with `accountId`. */
  read: OtpState | undefined;
  accountId: string;
  otpToken: string;
  codeHash: string;
  expiresAt: number;
  fails: number;
  /** Guesses this code may be compared against. */
  guesses: number;
  createdAt: string;
  /** Epoch seconds: when a subscriber account no code of which was verified yet goes (TTL). */
  unverifiedTtl: number;
}): Promise<boolean> {
  // A subscriber nobody verified yet expires; a verified or registered account keeps its TTL (or none).
  const pending = !input.read?.verified;
  const asRead: Expr = !input.read
    ? notExists
    : input.read.fails === undefined
      ? AccountEntity.where.lacks('otp_fails')
      : AccountEntity.where.is('otp_fails', input.read.fails);
  return raced(() =>
    transact({
      ...takeTx(input.planned, input.nowMs),
      account: AccountEntity.tx.upsert(
        { msisdn: input.msisdn },
        {
          set: {
            msisdn: input.msisdn,
            otp_token: input.otpToken,
            otp_hash: input.codeHash,
            otp_expires_at: input.expiresAt,
            otp_used: false,
            otp_fails: input.fails,
            otp_guesses: input.guesses,
            ...(pending ? { keep_until: input.unverifiedTtl } : {}),
          },
          ifAbsent: { id: input.accountId, role: 'subscriber', created_at: input.createdAt },
          // A new account is a subscriber, in no index; an existing one keeps its role and number.
          keepsIndexes: true,
        },
        asRead,
      ),
    }),
  );
}

/** Takes every planned limit in one transaction; false when a race took one first (read again). */
// Access: TransactWriteItems [UpdateItem RATE slot per limit (condition on value read)].
export const takeLimits = (planned: Planned[], nowMs: number): Promise<boolean> =>
  raced(() => transact(takeTx(planned, nowMs)));

/** The account of an MSISDN with its current code, read strongly consistent. */
// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (ConsistentRead).
export async function readForVerify(msisdn: string): Promise<OtpState | undefined> {
  const account = await AccountEntity.get({ msisdn }, { consistent: true });
  return account && stateOf(account);
}

/**
 * Counts one guess at the current code BEFORE it is compared, as long as the code is still the
 * one that was read, unused, and below `maxFails` guesses: so parallel guesses can never
 * compare more than `maxFails` times, and a guess that lost the race to a successful verify
 * counts against nothing. The right code then resets the count (`consumeOtp`). False: the code
 * was replaced, used or burnt meanwhile.
 */
// Access: conditional UpdateItem pk=ACCOUNT#<msisdn>, ADD otp_fails 1 (otp_token matches, unused, otp_fails < max).
export const takeGuess = (
  msisdn: string,
  otpToken: string,
  maxFails: number,
  nowMs: number,
): Promise<boolean> =>
  AccountEntity.update(
    { msisdn },
    { add: { otp_fails: 1 }, set: { otp_last_fail_at: nowMs } },
    allOf(
      AccountEntity.where.is('otp_token', otpToken),
      AccountEntity.where.is('otp_used', false),
      AccountEntity.where.compare('otp_fails', '<', maxFails),
    ),
  );

/**
 * Marks the code used and resets the failure count. Single use: the condition lets exactly one
 * of many parallel verifies of the same code through; it also refuses a code replaced or burnt
 * meanwhile. `failsAtMost`: the count the code may have (the guess being answered included,
 * when `takeGuess` counted it).
 */
// Access: conditional UpdateItem pk=ACCOUNT#<msisdn> (otp_token matches, unused, otp_fails <= failsAtMost), SET verified_at and the TTL.
export const consumeOtp = (
  msisdn: string,
  otpToken: string,
  failsAtMost: number,
  retention: { nowIso: string; ttl: number | undefined },
): Promise<boolean> =>
  AccountEntity.update(
    { msisdn },
    {
      // Verified now: a subscriber is kept until `ttl` (its retention from this login), an
      // operator has no TTL at all.
      set: { otp_used: true, otp_fails: 0, otp_last_fail_at: undefined, keep_until: retention.ttl },
      ifAbsent: { verified_at: retention.nowIso },
    },
    allOf(
      AccountEntity.where.is('otp_token', otpToken),
      AccountEntity.where.is('otp_used', false),
      AccountEntity.where.compare('otp_fails', '<=', failsAtMost),
    ),
  );
