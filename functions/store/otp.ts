import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { isConditionFailure } from './table.js';

/**
 * The current one-time password of an account (one at a time: a new request replaces the code
 * but keeps the failure count, so resending does not buy more guesses).
 */
export interface OtpRecord {
  subjectId: string;
  otpToken: string;
  codeHash: string;
  /** Epoch ms after which the code is refused (checked in code; TTL is only cleanup). */
  expiresAt: number;
  used: boolean;
  fails: number;
  /** Epoch ms of the latest wrong guess. */
  lastFailAt?: number;
}

const keys = {
  otp: (subjectId: string) => ({ pk: `OTP#${subjectId}`, sk: 'OTP' }),
};

function fromItem(item: Record<string, unknown>): OtpRecord {
  return {
    subjectId: (item.pk as string).slice('OTP#'.length),
    otpToken: item.otp_token as string,
    codeHash: item.code_hash as string,
    expiresAt: item.expires_at as number,
    used: item.used === true,
    fails: (item.fails as number | undefined) ?? 0,
    ...(typeof item.last_fail_at === 'number' ? { lastFailAt: item.last_fail_at } : {}),
  };
}

// Access: GetItem pk=OTP#<account id>, sk=OTP (strongly consistent: verify must see the latest code).
export async function getOtp(subjectId: string): Promise<OtpRecord | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: keys.otp(subjectId), ConsistentRead: true }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/**
 * Stores a new code. `expectFails` is the failure count the caller read (undefined: no record);
 * the write only lands if it is still that, so a wrong guess racing a resend is never lost.
 * `fails` is the count to store (the caller resets it once a lockout has passed).
 */
// Access: conditional UpdateItem pk=OTP#<account id>, sk=OTP on the failure count read before.
export async function putOtp(input: {
  subjectId: string;
  otpToken: string;
  codeHash: string;
  expiresAt: number;
  ttl: number;
  expectFails: number | undefined;
  fails: number;
}): Promise<boolean> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.otp(input.subjectId),
        UpdateExpression:
          'SET otp_token = :tok, code_hash = :h, expires_at = :exp, used = :false, fails = :fails, ' +
          'entity = :entity, #ttl = :ttl',
        ConditionExpression: input.expectFails === undefined ? 'attribute_not_exists(pk)' : 'fails = :expect',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':tok': input.otpToken,
          ':h': input.codeHash,
          ':exp': input.expiresAt,
          ':false': false,
          ':fails': input.fails,
          ':entity': 'otp',
          ':ttl': input.ttl,
          ...(input.expectFails === undefined ? {} : { ':expect': input.expectFails }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Marks the code used. Single use: the condition lets exactly one of many parallel verifies of
 * the same code through; it also refuses a code that was replaced or burnt meanwhile.
 */
// Access: conditional UpdateItem pk=OTP#<account id>, sk=OTP (otp_token matches, unused, fails < max).
export async function consumeOtp(subjectId: string, otpToken: string, maxFails: number): Promise<boolean> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.otp(subjectId),
        UpdateExpression: 'SET used = :true, fails = :zero REMOVE last_fail_at',
        ConditionExpression: 'otp_token = :tok AND used = :false AND fails < :max',
        ExpressionAttributeValues: {
          ':true': true,
          ':false': false,
          ':zero': 0,
          ':tok': otpToken,
          ':max': maxFails,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Counts a wrong guess; returns the new failure count. */
// Access: UpdateItem pk=OTP#<account id>, sk=OTP, ADD fails 1 (atomic counter; item must exist).
export async function recordFailure(subjectId: string, nowMs: number): Promise<number> {
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.otp(subjectId),
        UpdateExpression: 'ADD fails :one SET last_fail_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return (out.Attributes?.fails as number | undefined) ?? 0;
  } catch (error) {
    if (isConditionFailure(error)) return 0;
    throw error;
  }
}
