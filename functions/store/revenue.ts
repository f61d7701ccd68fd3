import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';

/**
 * Revenue of one reseller in one month (UTC), kept up to date inside the transaction that
 * completes a payment or redeems a voucher: the billing summary is one GetItem, whatever the
 * number of payments. Payments without a NAS id count under `UNATTRIBUTED`.
 */
export const UNATTRIBUTED = 'unattributed';

export interface MonthlyRevenue {
  reseller_id: string;
  month: string;
  total_fcfa: number;
  sessions_count: number;
}

const keys = {
  month: (resellerId: string, month: string) => ({ pk: `REVENUE#${resellerId}`, sk: `MONTH#${month}` }),
};

/** The increment of a month's aggregate, for a transaction. */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD total_fcfa, sessions_count (in a transaction).
export function revenueIncrement(
  resellerId: string,
  month: string,
  amountFcfa: number,
): {
  TableName: string;
  Key: Record<string, string>;
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  return {
    TableName: tableName(),
    Key: keys.month(resellerId, month),
    UpdateExpression:
      'ADD total_fcfa :amount, sessions_count :one SET entity = :entity, reseller_id = :r, #month = :m',
    ExpressionAttributeNames: { '#month': 'month' },
    ExpressionAttributeValues: {
      ':amount': amountFcfa,
      ':one': 1,
      ':entity': 'revenue',
      ':r': resellerId,
      ':m': month,
    },
  };
}

/** One more RADIUS session started in the month at the reseller's hotspots (accounting Start). */
// Access: UpdateItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>: ADD sessions_count 1 (in a transaction).
export function revenueSessionStarted(resellerId: string, month: string) {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.month(resellerId, month),
      UpdateExpression: 'ADD sessions_count :one SET entity = :entity, reseller_id = :r, #month = :m',
      ExpressionAttributeNames: { '#month': 'month' },
      ExpressionAttributeValues: { ':one': 1, ':entity': 'revenue', ':r': resellerId, ':m': month },
    },
  };
}

/** A month with no activity reads as zeros. */
// Access: GetItem pk=REVENUE#<reseller_id>, sk=MONTH#<YYYY-MM>.
export async function getMonthlyRevenue(resellerId: string, month: string): Promise<MonthlyRevenue> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: keys.month(resellerId, month) }),
  );
  return {
    reseller_id: resellerId,
    month,
    total_fcfa: (out.Item?.total_fcfa as number | undefined) ?? 0,
    sessions_count: (out.Item?.sessions_count as number | undefined) ?? 0,
  };
}
