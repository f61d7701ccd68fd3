import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../core/clock.js';
import { ddb, tableName } from '../core/ddb.js';
import type { Role } from '../core/tokens.js';
import { queryAll } from './table.js';

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

export const accountKeys = {
  account: (msisdn: string) => ({ pk: `ACCOUNT#${msisdn}`, sk: 'ACCOUNT' }),
  /** Operator accounts (admins, resellers) are listed through gsi1; subscribers are not. */
  operatorIndex: (role: Role, msisdn: string) => ({ gsi1pk: 'OPERATORS', gsi1sk: `${role}#${msisdn}` }),
};

function fromItem(item: Record<string, unknown>): Account {
  return {
    id: item.id as string,
    msisdn: item.msisdn as string,
    role: item.role as Role,
    created_at: item.created_at as string,
    ...(item.reseller_id ? { reseller_id: item.reseller_id as string } : {}),
    ...(item.name ? { name: item.name as string } : {}),
  };
}

// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT.
export async function getAccount(msisdn: string): Promise<Account | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: accountKeys.account(msisdn) }));
  return out.Item ? fromItem(out.Item) : undefined;
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
  const values: Record<string, unknown> = {
    ':id': randomUUID(),
    ':m': input.msisdn,
    ':role': input.role,
    ':now': clock.iso(),
    ':entity': 'account',
    ...Object.fromEntries(
      Object.entries(accountKeys.operatorIndex(input.role, input.msisdn)).map(([k, v]) => [`:${k}`, v]),
    ),
  };
  let set =
    'SET #id = if_not_exists(#id, :id), msisdn = :m, #role = :role, created_at = if_not_exists(created_at, :now), ' +
    'entity = :entity, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk';
  const remove: string[] = [];
  if (input.resellerId) {
    set += ', reseller_id = :rid';
    values[':rid'] = input.resellerId;
  } else remove.push('reseller_id');
  if (input.name) {
    set += ', #name = :name';
    values[':name'] = input.name;
  }
  const out = await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: accountKeys.account(input.msisdn),
      UpdateExpression: remove.length ? `${set} REMOVE ${remove.join(', ')}` : set,
      ExpressionAttributeNames: { '#id': 'id', '#role': 'role', ...(input.name ? { '#name': 'name' } : {}) },
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return fromItem(out.Attributes ?? {});
}

// Access: Query gsi1 gsi1pk=OPERATORS (admins and resellers, ordered by role then MSISDN).
export async function listOperators(): Promise<Account[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': 'OPERATORS' },
  });
  return items.map(fromItem);
}
