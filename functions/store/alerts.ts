import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../core/ddb.js';
import { cancellationReasons, isConditionFailure, queryAll, queryCount } from './table.js';

export type AlertStatus = 'active' | 'acked';

/** An alert (spec §2.13), as stored and as answered. */
export interface Alert {
  id: string;
  type: string;
  severity: string;
  /** The nas_id of the hotspot concerned. */
  site: string;
  ts: string;
  acked: boolean;
  acked_by: string | null;
  acked_at: string | null;
  message: string;
}

/** Acked alerts are kept this long after their ack; active ones until someone acks them. */
const ACKED_RETENTION_S = 90 * 86_400;

const keys = {
  alert: (id: string) => ({ pk: `ALERT#${id}`, sk: 'ALERT' }),
  /** gsi1: every alert of a status, by time (admin lists and counts). */
  byStatus: (status: AlertStatus, ts: string, id: string) => ({
    gsi1pk: `ALERTS#${status}`,
    gsi1sk: `${ts}#${id}`,
  }),
  statusPartition: (status: AlertStatus) => `ALERTS#${status}`,
  /** gsi2: the alerts of one site, status first so a status is one begins_with. */
  bySite: (site: string, status: AlertStatus, ts: string, id: string) => ({
    gsi2pk: `SITE#${site}#ALERTS`,
    gsi2sk: `${status}#${ts}#${id}`,
  }),
  sitePartition: (site: string) => `SITE#${site}#ALERTS`,
  /** At most one open incident per site and alert type: the guard against an alert per run. */
  incident: (site: string, type: string) => ({ pk: `INCIDENT#${site}#${type}`, sk: 'INCIDENT' }),
};

function fromItem(item: Record<string, unknown>): Alert {
  return {
    id: item.id as string,
    type: item.type as string,
    severity: item.severity as string,
    site: item.site as string,
    ts: item.ts as string,
    acked: item.acked === true,
    acked_by: (item.acked_by as string | undefined) ?? null,
    acked_at: (item.acked_at as string | undefined) ?? null,
    message: (item.message as string | undefined) ?? '',
  };
}

/**
 * Raises an alert unless an incident of this type is already open for the site: the incident
 * marker and the alert are written in one transaction, the marker only if absent, so runs that
 * overlap or repeat can never raise two. Undefined when the incident was already open.
 */
// Access: TransactWriteItems: Put INCIDENT#<site>#<type> attribute_not_exists(pk) + Put ALERT#<id> (gsi1 status, gsi2 site).
export async function raiseAlertOnce(input: {
  type: string;
  severity: string;
  site: string;
  ts: string;
  message: string;
}): Promise<Alert | undefined> {
  const id = randomUUID();
  const alert: Alert = { id, ...input, acked: false, acked_by: null, acked_at: null };
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.incident(input.site, input.type),
                entity: 'incident',
                alert_id: id,
                opened_at: input.ts,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.alert(id),
                ...keys.byStatus('active', input.ts, id),
                ...keys.bySite(input.site, 'active', input.ts, id),
                entity: 'alert',
                id,
                type: input.type,
                severity: input.severity,
                site: input.site,
                ts: input.ts,
                acked: false,
                message: input.message,
              },
            },
          },
        ],
      }),
    );
    return alert;
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return undefined;
    throw error;
  }
}

/** Ends the open incident, if any, so that the next degradation raises a new alert. */
// Access: DeleteItem pk=INCIDENT#<site>#<type>, sk=INCIDENT.
export async function closeIncident(site: string, type: string): Promise<void> {
  await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.incident(site, type) }));
}

// Access: GetItem pk=INCIDENT#<site>#<type>, sk=INCIDENT.
export async function isIncidentOpen(site: string, type: string): Promise<boolean> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: keys.incident(site, type) }));
  return out.Item !== undefined;
}

// Access: GetItem pk=ALERT#<id>, sk=ALERT.
export async function getAlert(id: string): Promise<Alert | undefined> {
  const out = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: keys.alert(id), ConsistentRead: true }),
  );
  return out.Item?.entity === 'alert' ? fromItem(out.Item) : undefined;
}

/**
 * Acknowledges an active alert. Idempotent: an alert acked already is answered as it is (the
 * first ack's user and time stay). Undefined when there is no such alert.
 */
// Access: UpdateItem pk=ALERT#<id> with acked = false; moves gsi1pk to ALERTS#acked and gsi2sk to acked#...
export async function ackAlert(
  id: string,
  userId: string,
  bySub: string,
  at: string,
): Promise<Alert | undefined> {
  const current = await getAlert(id);
  if (!current) return undefined;
  if (current.acked) return current;
  try {
    const out = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.alert(id),
        UpdateExpression:
          'SET acked = :true, acked_by = :user, acked_by_sub = :sub, acked_at = :at, ' +
          'gsi1pk = :g1pk, gsi2sk = :g2sk, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(pk) AND acked = :false',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':true': true,
          ':false': false,
          ':user': userId,
          ':sub': bySub,
          ':at': at,
          ':g1pk': keys.byStatus('acked', current.ts, id).gsi1pk,
          ':g2sk': keys.bySite(current.site, 'acked', current.ts, id).gsi2sk,
          ':ttl': Math.floor(Date.parse(at) / 1000) + ACKED_RETENTION_S,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(out.Attributes ?? {});
  } catch (error) {
    // A parallel ack won: answer what it wrote.
    if (isConditionFailure(error)) return getAlert(id);
    throw error;
  }
}

async function queryAlerts(input: Parameters<typeof queryAll>[0]): Promise<Alert[]> {
  return (await queryAll(input)).map(fromItem);
}

/** Every alert of a status, newest first. */
// Access: Query gsi1 gsi1pk=ALERTS#<status>, ScanIndexForward=false.
export function listAlertsByStatus(status: AlertStatus): Promise<Alert[]> {
  return queryAlerts({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': keys.statusPartition(status) },
    ScanIndexForward: false,
  });
}

/** The alerts of one site, of one status or all, newest first within a status. */
// Access: Query gsi2 gsi2pk=SITE#<nas_id>#ALERTS [AND begins_with(gsi2sk, <status>#)], ScanIndexForward=false.
export function listSiteAlerts(site: string, status?: AlertStatus): Promise<Alert[]> {
  return queryAlerts({
    IndexName: 'gsi2',
    KeyConditionExpression: status ? 'gsi2pk = :p AND begins_with(gsi2sk, :s)' : 'gsi2pk = :p',
    ExpressionAttributeValues: { ':p': keys.sitePartition(site), ...(status ? { ':s': `${status}#` } : {}) },
    ScanIndexForward: false,
  });
}

// Access: Query gsi1 gsi1pk=ALERTS#active, Select=COUNT.
export function countActiveAlerts(): Promise<number> {
  return queryCount({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': keys.statusPartition('active') },
  });
}

// Access: Query gsi2 gsi2pk=SITE#<nas_id>#ALERTS AND begins_with(gsi2sk, active#), Select=COUNT.
export function countActiveSiteAlerts(site: string): Promise<number> {
  return queryCount({
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :p AND begins_with(gsi2sk, :s)',
    ExpressionAttributeValues: { ':p': keys.sitePartition(site), ':s': 'active#' },
  });
}
