// Accounts (subscribers and operators) by phone number: read, registered, removed, their tokens revoked, an erasure recorded.

import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import type { Role } from '../core/principal.js';
import { allOf, type Expr, entity, exists, notExists } from './entity.js';

/**
 * An account is a phone number that has logged in (a subscriber) or that an operator
 * registered as an admin or a reseller. Keyed by MSISDN; `id` is the stable UUID that OTPs and
 * tokens are bound to.
 */
export interface Account {
  id: string;
  msisdn: string;
  role: Role;
  reseller_id?: string;
  /** An agent's record (functions/store/agents.ts): only on accounts of role `agent`. */
  agent_id?: string;
  name?: string;
  created_at: string;
  /**
   * Bumped to end every session token the account holds: a token carries the version it was
   * signed at, and an operator's token is refused once the account's version moved on
   * (functions/auth/tokens.ts). Absent: 0.
   */
  token_version?: number;
}

/**
 * The account's current one-time password, kept on the account item so that an OTP request is
 * one read and one transaction (otp.ts). Never part of what the account store answers.
 */
export interface AccountOtp {
  otp_token?: string;
  /** When a code of this account was first verified (absent: never, or before this was kept). */
  verified_at?: string;
  /** Hash of the code, bound to the account's id and the OTP token. */
  otp_hash?: string;
  /** Epoch ms after which the code is refused (checked in code; TTL does not apply here). */
  otp_expires_at?: number;
  otp_used?: boolean;
  /** Guesses made at the current code; absent while the account never had a code. */
  otp_fails?: number;
  /** Guesses the current code may be compared against (absent: 5, a code of before this was kept). */
  otp_guesses?: number;
  /** Epoch ms of the last guess: a code burnt within OTP.afterBurnMs makes the next ones stricter. */
  otp_last_fail_at?: number;
  /**
   * Epoch seconds until which a subscriber's account is kept (its TTL): a subscriber no code of
   * which was verified yet, until it would have been; a verified one, its retention from its last
   * login. Never on an operator's or an agent's account: they are kept until removed.
   */
  keep_until?: number;
}

export type StoredAccount = Account & AccountOtp;

const isOperator = (a: StoredAccount) => a.role !== 'subscriber';

export const AccountEntity = entity<StoredAccount>('account')({
  key: (a: Pick<Account, 'msisdn'>) => ({ pk: `ACCOUNT#${a.msisdn}`, sk: 'ACCOUNT' }),
  indexes: {
    /** Operator accounts (admins, resellers), by role then MSISDN; subscribers are not listed. */
    operators: { gsi: 'gsi1', pk: 'OPERATORS', sk: '{role}#{msisdn}', when: isOperator },
  },
  ttl: (a) => a.keep_until,
  ttlFrom: ['keep_until'],
});

const publicAccount = ({
  otp_token,
  otp_hash,
  otp_expires_at,
  otp_used,
  otp_fails,
  otp_guesses,
  otp_last_fail_at,
  verified_at,
  keep_until,
  ...account
}: StoredAccount): Account => account;

// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT.
export async function getAccount(msisdn: string): Promise<Account | undefined> {
  const stored = await AccountEntity.get({ msisdn });
  return stored && publicAccount(stored);
}

/**
 * What an account looked like when it was read, for a write that must not undo a change made
 * meanwhile: `undefined` when there was no account.
 */
export type AccountAsRead = Pick<Account, 'role' | 'reseller_id'> | undefined;

/** `attribute_not_exists(pk)`, or the role and reseller id as read. */
function unchangedSince(read: AccountAsRead): Expr {
  if (!read) return notExists;
  const w = AccountEntity.where;
  return allOf(
    w.is('role', read.role),
    read.reseller_id === undefined ? w.lacks('reseller_id') : w.is('reseller_id', read.reseller_id),
  );
}

interface OperatorInput {
  msisdn: string;
  role: 'admin' | 'reseller';
  resellerId?: string;
  name?: string;
}

/**
 * Registers (or changes) an operator account. An existing subscriber keeps its id, so its
 * history stays attached to it.
 */
// Access: UpdateItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT; enters the operators index (gsi1).
export async function upsertOperator(input: OperatorInput): Promise<Account> {
  const account = await writeOperator(input);
  // Unconditional: DynamoDB always answers the item it wrote.
  if (!account) throw new Error('UpdateItem of an account returned no attributes');
  return account;
}

/**
 * `upsertOperator`, refused (undefined) when the account's role or reseller id changed since it
 * was read as `asRead`: bin/admin/accounts.ts decides from that read what may change.
 */
// Access: UpdateItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (condition: role and reseller_id as read); enters operators.
export const registerOperator = (input: OperatorInput, asRead: AccountAsRead): Promise<Account | undefined> =>
  writeOperator(input, unchangedSince(asRead));

async function writeOperator(input: OperatorInput, condition?: Expr): Promise<Account | undefined> {
  const stored = await AccountEntity.upsertReturning(
    { msisdn: input.msisdn },
    {
      set: {
        msisdn: input.msisdn,
        role: input.role,
        // An admin holds no reseller id, whatever the account was before.
        reseller_id: input.resellerId || undefined,
        ...(input.name ? { name: input.name } : {}),
        // An operator is kept until removed: no TTL, even on a subscriber it was before.
        keep_until: undefined,
      },
      ifAbsent: { id: randomUUID(), created_at: clock.iso() },
    },
    condition,
  );
  return stored && publicAccount(stored);
}

/**
 * Takes an operator's role away: the account becomes a subscriber again (same id, so its
 * history stays attached), leaves the operator list, and every token it holds ends at once.
 * Undefined when there is no such account or it is not an operator.
 */
// Access: UpdateItem pk=ACCOUNT#<msisdn> (condition: an operator), leaves operators, ADD token_version 1.
export async function removeOperator(msisdn: string): Promise<Account | undefined> {
  const stored = await AccountEntity.updateReturning(
    { msisdn },
    {
      set: { role: 'subscriber' },
      remove: ['reseller_id', 'agent_id', 'name'],
      add: { token_version: 1 },
    },
    allOf(exists, AccountEntity.where.isNot('role', 'subscriber')),
  );
  return stored && publicAccount(stored);
}

/**
 * Ends every session token of an account: its token version moves on. With `accountId`, only
 * while the number still belongs to that account (a logout names its own). False when there is
 * no such account.
 */
// Access: UpdateItem pk=ACCOUNT#<msisdn>, ADD token_version 1 (condition: exists, and id as given).
export function revokeTokens(msisdn: string, accountId?: string): Promise<boolean> {
  return AccountEntity.update(
    { msisdn },
    { add: { token_version: 1 } },
    accountId ? allOf(exists, AccountEntity.where.is('id', accountId)) : exists,
  );
}

/**
 * What a session token of the account must still match: its id, role, reseller id and token
 * version. Read strongly consistent, so a revocation holds from the next request on.
 */
// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (ConsistentRead).
export async function sessionStateOf(
  msisdn: string,
): Promise<Pick<Account, 'id' | 'role' | 'reseller_id' | 'agent_id' | 'token_version'> | undefined> {
  const a = await AccountEntity.get({ msisdn }, { consistent: true });
  return (
    a && {
      id: a.id,
      role: a.role,
      ...(a.reseller_id !== undefined ? { reseller_id: a.reseller_id } : {}),
      ...(a.agent_id !== undefined ? { agent_id: a.agent_id } : {}),
      ...(a.token_version !== undefined ? { token_version: a.token_version } : {}),
    }
  );
}

// Access: Query operators (gsi1) gsi1pk=OPERATORS (admins and resellers, ordered by role then MSISDN).
export async function listOperators(): Promise<Account[]> {
  const items = await AccountEntity.queryIndexAll('operators', {});
  return items.map(publicAccount);
}

/**
 * Deletes a subscriber's account and the one-time password on it (an erasure). Only a
 * subscriber's, and only the account as read (`id`): an operator is removed as one first.
 */
// Access: DeleteItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (condition: role = subscriber AND id = :id).
export const deleteSubscriberAccount = (msisdn: string, id: string): Promise<boolean> =>
  AccountEntity.delete(
    { msisdn },
    allOf(AccountEntity.where.is('role', 'subscriber'), AccountEntity.where.is('id', id)),
  );

/**
 * The trace an erasure leaves for the session tokens of the account it deleted: the account's
 * id (a random UUID, not the number), until the last token it could have signed has expired.
 * A token whose number has no account is otherwise taken as one minted by a tool holding the
 * signing key (functions/auth/tokens.ts); this tells an erased subscriber's apart.
 */
export interface ErasedAccount {
  id: string;
  erased_at: string;
  /** Epoch seconds after which no token of the account can be valid (DynamoDB's TTL then removes it). */
  until: number;
}

export const ErasedAccountEntity = entity<ErasedAccount>('erased_account')({
  key: (e: Pick<ErasedAccount, 'id'>) => ({ pk: `ERASED#${e.id}`, sk: 'ERASED' }),
  ttl: (e) => e.until,
});

/** Records that an account was erased, for its tokens' remaining lifetime (`untilS`, epoch seconds). */
// Access: PutItem pk=ERASED#<account id>.
export const recordErasure = (id: string, untilS: number): Promise<boolean> =>
  ErasedAccountEntity.put({ id, erased_at: clock.iso(), until: untilS });

/** Whether the account `id` was erased (strongly consistent: an erasure holds from the next request on). */
// Access: GetItem pk=ERASED#<account id> (ConsistentRead).
export const wasErased = async (id: string): Promise<boolean> =>
  (await ErasedAccountEntity.get({ id }, { consistent: true })) !== undefined;

/** The stored account of a number, one-time password fields left out. */
// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (ConsistentRead).
export async function readAccount(msisdn: string): Promise<Account | undefined> {
  const stored = await AccountEntity.get({ msisdn }, { consistent: true });
  return stored && publicAccount(stored);
}
