// An Interim-Update written to its session in one write when nothing else moves.

import { ConditionalCheckFailedException, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemClient, tableName } from '../core/ddb.js';
import { type RadiusSession, Session } from '../store/sessions.js';
import { wireInput } from '../store/wire.js';

/** What an Interim-Update says of its session: running totals, never increments. */
export interface InterimReport {
  uniqueId: string;
  inputBytes: number;
  outputBytes: number;
  sessionTimeS: number;
  eventTime?: number;
  /** The reseller of the router that sent it: a session of another reseller is not written. */
  routerResellerId?: string;
}

/**
 * An Interim-Update in one write, with no read before it: one UpdateItem of the session,
 * conditioned on what makes its new totals plain to compute in DynamoDB itself. The session is
 * counted by the stream (`by_stream`: its code's usage, device lease and data limit follow from
 * the table's stream, functions/radius/code-usage.ts), it is open, the report is later in the
 * same segment (its session time grew, its Event-Timestamp is not earlier than the stored one)
 * and neither direction's counter fell (no 32-bit wrap to judge). The totals are written as the
 * NAS reported them (absolute values): `total_bytes` is the earlier segments' bytes plus both
 * directions. No index key moves (the sweep reads `last_report_at` itself).
 *
 * Anything else fails the condition, and DynamoDB answers the session as stored in the same call
 * (`ReturnValuesOnConditionCheckFailure`): a replay, a duplicate, a late report, a wrap, a new
 * segment, a closed session, another reseller's, one written before `by_stream`, or none. The
 * caller judges it with the full rules (functions/radius/session-counters.ts) and, when the
 * report changes something, writes it the long way (functions/radius/accounting.ts).
 */
// Access: UpdateItem pk=SESSION#<id> SET totals, time, last report (condition by_stream, open, later, no fall, reseller), ReturnValuesOnConditionCheckFailure ALL_OLD.
export async function interimInOneWrite(
  r: InterimReport,
  nowIso: string,
): Promise<{ stored: true } | { stored: false; read: RadiusSession | undefined }> {
  const conditions = [
    'by_stream = :yes',
    '#status = :open',
    'session_time_s < :time',
    'input_bytes <= :in',
    'output_bytes <= :out',
    ...(r.eventTime !== undefined ? ['(attribute_not_exists(event_time) OR event_time <= :event)'] : []),
    ...(r.routerResellerId !== undefined ? ['reseller_id = :reseller'] : []),
  ];
  const sets = [
    'input_bytes = :in',
    'output_bytes = :out',
    'total_bytes = if_not_exists(base_bytes, :zero) + :sum',
    'session_time_s = :time',
    'last_report_at = :now',
    ...(r.eventTime !== undefined ? ['event_time = :event'] : []),
  ];
  try {
    await itemClient().send(
      new UpdateItemCommand(
        wireInput({
          TableName: tableName(),
          Key: Session.key({ id: r.uniqueId }),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':yes': true,
            ':open': 'open',
            ':time': r.sessionTimeS,
            ':in': r.inputBytes,
            ':out': r.outputBytes,
            ':sum': r.inputBytes + r.outputBytes,
            ':zero': 0,
            ':now': nowIso,
            ...(r.eventTime !== undefined ? { ':event': r.eventTime } : {}),
            ...(r.routerResellerId !== undefined ? { ':reseller': r.routerResellerId } : {}),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return { stored: true };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { stored: false, read: error.Item ? Session.parse(unmarshall(error.Item)) : undefined };
  }
}
