import { randomUUID } from 'node:crypto';
import { clock } from '../core/clock.js';
import type { Role } from '../core/tokens.js';
import { entity } from './entity.js';

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
  name?: string;
  created_at: string;
}

/**
 * The account's current one-time password, kept on the account item so that an OTP request is
 * one read and one transaction (otp.ts). Never part of what the account store answers.
 */
export interface AccountOtp {
  otp_token?: string;
  /** Hash of the code, bound to the account's id and the OTP token. */
  otp_hash?: string;
  /** Epoch ms after which the code is refused (checked in code; TTL does not apply here). */
  otp_expires_at?: number;
  otp_used?: boolean;
  /** Wrong guesses at the current code; absent while the account never had a code. */
  otp_fails?: number;
  /** Epoch ms of the last wrong guess: the lockout runs from it. */
  otp_last_fail_at?: number;
}

export type StoredAccount = Account & AccountOtp;

export const AccountEntity = entity<StoredAccount>()({
  name: 'account',
  key: (a: Pick<Account, 'msisdn'>) => ({ pk: `ACCOUNT#${a.msisdn}`, sk: 'ACCOUNT' }),
  indexes: {
    /** Operator accounts (admins, resellers), by role then MSISDN; subscribers are not listed. */
    gsi1: {
      pk: (_all: unknown) => 'OPERATORS',
      sk: (a: Pick<Account, 'role' | 'msisdn'>) => `${a.role}#${a.msisdn}`,
      when: (a: StoredAccount) => a.role !== 'subscriber',
    },
  },
});

const publicAccount = ({
  otp_token,
  otp_hash,
  otp_expires_at,
  otp_used,
  otp_fails,
  otp_last_fail_at,
  ...account
}: StoredAccount): Account => account;

// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT.
export async function getAccount(msisdn: string): Promise<Account | undefined> {
  const stored = await AccountEntity.get({ msisdn });
  return stored && publicAccount(stored);
}

/**
 * Registers (or changes) an operator account. An existing subscriber keeps its id, so its
 * history stays attached to it.
 */
// Access: UpdateItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT; sets gsi1 (OPERATORS) for listing.
export async function upsertOperator(input: {
  msisdn: string;
  role: 'admin' | 'reseller';
  resellerId?: string;
  name?: string;
}): Promise<Account> {
  const set = [
    '#id = if_not_exists(#id, :id)',
    'msisdn = :m',
    '#role = :role',
    'created_at = if_not_exists(created_at, :now)',
    'entity = :entity',
    'gsi1pk = :gsi1pk',
    'gsi1sk = :gsi1sk',
  ];
  const names: Record<string, string> = { '#id': 'id', '#role': 'role' };
  const values: Record<string, unknown> = {
    ':id': randomUUID(),
    ':m': input.msisdn,
    ':role': input.role,
    ':now': clock.iso(),
    ':entity': AccountEntity.name,
    ':gsi1pk': AccountEntity.indexes.gsi1.pk(input),
    ':gsi1sk': AccountEntity.indexes.gsi1.sk(input),
  };
  if (input.resellerId) {
    set.push('reseller_id = :rid');
    values[':rid'] = input.resellerId;
  }
  if (input.name) {
    set.push('#name = :name');
    names['#name'] = 'name';
    values[':name'] = input.name;
  }
  // An admin holds no reseller id, whatever the account was before.
  const remove = input.resellerId ? '' : ' REMOVE reseller_id';
  const stored = await AccountEntity.updateReturning(
    { msisdn: input.msisdn },
    { expression: `SET ${set.join(', ')}${remove}`, names, values },
  );
  // Unconditional: DynamoDB always answers the item it wrote.
  if (!stored) throw new Error('UpdateItem of an account returned no attributes');
  return publicAccount(stored);
}

// Access: Query gsi1 gsi1pk=OPERATORS (admins and resellers, ordered by role then MSISDN).
export async function listOperators(): Promise<Account[]> {
  const items = await AccountEntity.queryIndexAll('gsi1', {});
  return items.map(publicAccount);
}
