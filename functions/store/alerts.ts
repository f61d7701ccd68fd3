// Alerts: raised once per open incident, acknowledged, closed, and listed by status or site.

import { randomUUID } from 'node:crypto';
import { countItems, scopeOf } from './counters.js';
import { allOf, anyOf, cancelled, entity, exists, notExists, transact } from './entity.js';
import { getNas } from './nas.js';

export type AlertStatus = 'active' | 'acked';

/** An alert, as answered: `acked_by` and `acked_at` are null until someone acks it. */
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

/** An alert as stored: the ack's attributes only once acked, with the acking principal. */
interface StoredAlert extends Omit<Alert, 'acked_by' | 'acked_at'> {
  /** The reseller of the site when it was raised: whose active-alert count it is in. */
  reseller_id?: string;
  acked_by?: string;
  /** The `sub` of the principal who acked (audit; not answered). */
  acked_by_sub?: string;
  acked_at?: string;
}

/** Acked alerts are kept this long after their ack; active ones until someone acks them. */
const ACKED_RETENTION_S = 90 * 86_400;

const statusOf = (a: Pick<StoredAlert, 'acked'>): AlertStatus => (a.acked ? 'acked' : 'active');

/** The start of a site's bySite sort keys of one status: a status is one begins_with. */
const siteStatusPrefix = (status: AlertStatus) => `${status}#`;

export const AlertEntity = entity<StoredAlert>('alert')({
  key: (a: Pick<Alert, 'id'>) => ({ pk: `ALERT#${a.id}`, sk: 'ALERT' }),
  indexes: {
    /** Every alert of a status, by time (admin lists and counts); an ack moves it. */
    byStatus: {
      gsi: 'gsi1',
      composite: ['acked', 'ts', 'id'],
      pk: (a: Pick<StoredAlert, 'acked'>) => `ALERTS#${statusOf(a)}`,
      sk: (a: StoredAlert) => `${a.ts}#${a.id}`,
    },
    /** The alerts of one site, status first; an ack moves it within the partition. */
    bySite: {
      gsi: 'gsi2',
      composite: ['site', 'acked', 'ts', 'id'],
      pk: (a: Pick<StoredAlert, 'site'>) => `SITE#${a.site}#ALERTS`,
      sk: (a: Pick<StoredAlert, 'acked' | 'ts' | 'id'>) => `${siteStatusPrefix(statusOf(a))}${a.ts}#${a.id}`,
    },
  },
  // An acknowledged alert is kept ACKED_RETENTION_S after its ack; an active one stays.
  ttl: (a) => (a.acked_at ? Math.floor(Date.parse(a.acked_at) / 1000) + ACKED_RETENTION_S : undefined),
  ttlFrom: ['acked_at'],
});

/** At most one open incident per site and alert type: the guard against an alert per run. */
const Incident = entity<{ site: string; type: string; alert_id: string; opened_at: string }>('incident')({
  key: (i: { site: string; type: string }) => ({ pk: `INCIDENT#${i.site}#${i.type}`, sk: 'INCIDENT' }),
});

/** The counts an alert is in while active: the platform's, and its site's reseller's. */
const alertScopes = (a: StoredAlert): string[] => [
  scopeOf.all(),
  ...(a.reseller_id ? [scopeOf.reseller(a.reseller_id)] : []),
];

const answered = ({ acked_by_sub, acked_by, acked_at, reseller_id, ...a }: StoredAlert): Alert => ({
  ...a,
  acked_by: acked_by ?? null,
  acked_at: acked_at ?? null,
});

/**
 * Raises an alert unless an incident of this type is already open for the site: the incident
 * marker and the alert are written in one transaction, the marker only if absent, so runs that
 * overlap or repeat can never raise two. Undefined when the incident was already open.
 * `reopenAfterMs`: an incident nobody closes (an event, not a state: a flood of wrong codes) is
 * taken as over this long after it opened, and the next one raises a new alert.
 */
// Access: TransactWriteItems: Put INCIDENT#<site>#<type> attribute_not_exists(pk) (or opened_at < now - reopenAfterMs) + Put ALERT#<id> (in byStatus and bySite).
export async function raiseAlertOnce(
  input: {
    type: string;
    severity: string;
    site: string;
    ts: string;
    message: string;
  },
  options: { reopenAfterMs?: number } = {},
): Promise<Alert | undefined> {
  const resellerId = (await getNas(input.site))?.reseller_id;
  const alert: StoredAlert = { id: randomUUID(), ...input, acked: false, reseller_id: resellerId };
  const marker = { site: input.site, type: input.type, alert_id: alert.id, opened_at: input.ts };
  try {
    await transact({
      incident:
        options.reopenAfterMs === undefined
          ? Incident.tx.create(marker)
          : Incident.tx.put(
              marker,
              anyOf(
                notExists,
                Incident.where.compare(
                  'opened_at',
                  '<',
                  new Date(Date.parse(input.ts) - options.reopenAfterMs).toISOString(),
                ),
              ),
            ),
      alert: AlertEntity.tx.put(alert),
      ...countItems('alerts_active', alertScopes(alert), 1, alert.id),
    });
    return answered(alert);
  } catch (error) {
    if (cancelled<'incident' | 'alert'>(error)?.failed('incident')) return undefined;
    throw error;
  }
}

/** Ends the open incident, if any, so that the next degradation raises a new alert. */
// Access: DeleteItem pk=INCIDENT#<site>#<type>, sk=INCIDENT.
export async function closeIncident(site: string, type: string): Promise<void> {
  await Incident.delete({ site, type });
}

// Access: GetItem pk=ALERT#<id>, sk=ALERT.
export async function getAlert(id: string): Promise<Alert | undefined> {
  const stored = await AlertEntity.get({ id }, { consistent: true });
  return stored && answered(stored);
}

/**
 * Acknowledges an active alert. Idempotent: an alert acked already is answered as it is (the
 * first ack's user and time stay). Undefined when there is no such alert.
 */
// Access: UpdateItem pk=ALERT#<id> with acked = false; moves it to ALERTS#acked in byStatus and to acked#... in bySite.
export async function ackAlert(
  id: string,
  userId: string,
  bySub: string,
  at: string,
): Promise<Alert | undefined> {
  const current = await AlertEntity.get({ id }, { consistent: true });
  if (!current) return undefined;
  if (current.acked) return answered(current);
  const ack = AlertEntity.tx.update(
    { id },
    {
      set: { acked: true, acked_by: userId, acked_by_sub: bySub, acked_at: at },
      read: current,
    },
    allOf(exists, AlertEntity.where.is('acked', false)),
  );
  try {
    await transact({ ack, ...countItems('alerts_active', alertScopes(current), -1, current.id) });
  } catch (error) {
    // Refused: a parallel ack won; answer what it wrote.
    if (!cancelled(error)) throw error;
  }
  return getAlert(id);
}

/** Every alert of a status, newest first. */
// Access: Query byStatus (gsi1) gsi1pk=ALERTS#<status>, ScanIndexForward=false.
export async function listAlertsByStatus(status: AlertStatus): Promise<Alert[]> {
  const items = await AlertEntity.queryIndexAll(
    'byStatus',
    { acked: status === 'acked' },
    { forward: false },
  );
  return items.map(answered);
}

/**
 * The alerts of one site raised while `resellerId` held it: a hotspot name (its NAS id) passes
 * to the next reseller when a VLAN is released, and the alerts raised before do not go with it.
 * An alert raised before owners were recorded has none, and is shown to admins only.
 */
// Access: Query bySite (gsi2) gsi2pk=SITE#<nas_id>#ALERTS [AND begins_with(gsi2sk, <status>#)], filtered on reseller_id.
export async function listOwnedSiteAlerts(
  site: string,
  resellerId: string,
  status?: AlertStatus,
): Promise<Alert[]> {
  const items = await AlertEntity.queryIndexAll(
    'bySite',
    { site },
    { forward: false, sk: status && { beginsWith: siteStatusPrefix(status) } },
  );
  return items.filter((a) => a.reseller_id === resellerId).map(answered);
}

/** The reseller that held the alert's site when it was raised (undefined: unknown alert or owner). */
// Access: GetItem pk=ALERT#<id>, sk=ALERT.
export async function alertOwner(id: string): Promise<string | undefined> {
  return (await AlertEntity.get({ id }, { consistent: true }))?.reseller_id;
}

/**
 * Ends every open incident of a site (a VLAN release: the name's next holder starts clean, its
 * first degradation raises its own alert). Every incident was opened with an alert of its type.
 */
// Access: Query bySite (gsi2) gsi2pk=SITE#<nas_id>#ALERTS; DeleteItem pk=INCIDENT#<site>#<type> per type.
export async function closeSiteIncidents(site: string): Promise<void> {
  const items = await AlertEntity.queryIndexAll('bySite', { site });
  await Promise.all([...new Set(items.map((a) => a.type))].map((type) => closeIncident(site, type)));
}
