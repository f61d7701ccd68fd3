import { BatchGetCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import type { Role } from '../core/tokens.js';
import { accountKeys } from './accounts.js';
import { planToken, type RatePlan, type RateWindow, rateKeys, takeSlotUpdate } from './rate-limit.js';
import { cancellationReasons, isConditionFailure } from './table.js';

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

function stateOf(item: Record<string, unknown>): OtpState {
  return {
    accountId: item.id as string,
    role: item.role as Role,
    ...(item.reseller_id ? { resellerId: item.reseller_id as string } : {}),
    ...(typeof item.otp_token === 'string' ? { otpToken: item.otp_token } : {}),
    ...(typeof item.otp_hash === 'string' ? { codeHash: item.otp_hash } : {}),
    ...(typeof item.otp_expires_at === 'number' ? { expiresAt: item.otp_expires_at } : {}),
    used: item.otp_used === true,
    fails: typeof item.otp_fails === 'number' ? item.otp_fails : undefined,
    ...(typeof item.otp_last_fail_at === 'number' ? { lastFailAt: item.otp_last_fail_at } : {}),
  };
}

/** The rate limiter and the account (with its OTP) of an MSISDN, in one strongly consistent read. */
// Access: BatchGetItem (ConsistentRead) pk=RATE#<scope>#<msisdn> and pk=ACCOUNT#<msisdn>.
export async function readForRequest(
  w: RateWindow,
  msisdn: string,
  nowMs: number,
): Promise<{ plan: RatePlan; account: OtpState | undefined }> {
  const rateKey = rateKeys.limiter(w.scope, msisdn);
  const accountKey = accountKeys.account(msisdn);
  const out = await ddb().send(
    new BatchGetCommand({
      RequestItems: { [tableName()]: { Keys: [rateKey, accountKey], ConsistentRead: true } },
    }),
  );
  // Two small items never come back as unprocessed unless DynamoDB throttles: fail clean then.
  if (Object.keys(out.UnprocessedKeys ?? {}).length) {
    const error = new Error('BatchGetItem left keys unprocessed');
    error.name = 'ThrottlingException';
    throw error;
  }
  const items = out.Responses?.[tableName()] ?? [];
  const rate = items.find((i) => i.pk === rateKey.pk);
  const account = items.find((i) => i.pk === accountKey.pk);
  return { plan: planToken(rate, w, nowMs), account: account ? stateOf(account) : undefined };
}

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
  const condition = !input.read
    ? 'attribute_not_exists(pk)'
    : input.read.fails === undefined
      ? 'attribute_not_exists(otp_fails)'
      : 'otp_fails = :expect';
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: takeSlotUpdate(input.window, input.msisdn, input.plan, input.nowMs) },
          {
            Update: {
              TableName: tableName(),
              Key: accountKeys.account(input.msisdn),
              UpdateExpression:
                'SET #id = if_not_exists(#id, :id), msisdn = :m, #role = if_not_exists(#role, :role), ' +
                'created_at = if_not_exists(created_at, :now), entity = :entity, otp_token = :tok, ' +
                'otp_hash = :h, otp_expires_at = :exp, otp_used = :false, otp_fails = :fails',
              ConditionExpression: condition,
              ExpressionAttributeNames: { '#id': 'id', '#role': 'role' },
              ExpressionAttributeValues: {
                ':id': input.accountId,
                ':m': input.msisdn,
                ':role': 'subscriber',
                ':now': input.createdAt,
                ':entity': 'account',
                ':tok': input.otpToken,
                ':h': input.codeHash,
                ':exp': input.expiresAt,
                ':false': false,
                ':fails': input.fails,
                ...(input.read?.fails !== undefined ? { ':expect': input.read.fails } : {}),
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (
      reasons?.every((r) => r === 'None' || r === 'ConditionalCheckFailed' || r === 'TransactionConflict')
    ) {
      return false;
    }
    throw error;
  }
}

/** The account of an MSISDN with its current code, read strongly consistent. */
// Access: GetItem pk=ACCOUNT#<msisdn>, sk=ACCOUNT (ConsistentRead).
export async function readForVerify(msisdn: string): Promise<OtpState | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: accountKeys.account(msisdn), ConsistentRead: true }),
  );
  return out.Item ? stateOf(out.Item) : undefined;
}

/**
 * Marks the code used. Single use: the condition lets exactly one of many parallel verifies of
 * the same code through; it also refuses a code replaced or burnt meanwhile.
 */
// Access: conditional UpdateItem pk=ACCOUNT#<msisdn> (otp_token matches, unused, otp_fails < max).
export async function consumeOtp(msisdn: string, otpToken: string, maxFails: number): Promise<boolean> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKeys.account(msisdn),
        UpdateExpression: 'SET otp_used = :true, otp_fails = :zero REMOVE otp_last_fail_at',
        ConditionExpression: 'otp_token = :tok AND otp_used = :false AND otp_fails < :max',
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

/** Counts a wrong guess against the code that was read; returns the new failure count. */
// Access: UpdateItem pk=ACCOUNT#<msisdn>, ADD otp_fails 1 (atomic counter) if otp_token still matches.
export async function recordFailure(msisdn: string, otpToken: string, nowMs: number): Promise<number> {
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKeys.account(msisdn),
        UpdateExpression: 'ADD otp_fails :one SET otp_last_fail_at = :now',
        ConditionExpression: 'otp_token = :tok',
        ExpressionAttributeValues: { ':one': 1, ':now': nowMs, ':tok': otpToken },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return (out.Attributes?.otp_fails as number | undefined) ?? 0;
  } catch (error) {
    if (isConditionFailure(error)) return 0;
    throw error;
  }
}
