// Alerts as operators read them (a reseller its own sites', an admin all) and acknowledge them.

import { clock } from '../core/clock.js';
import { forbidden, notFound } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { Page } from '../core/schemas.js';
import { pageOf } from '../core/schemas.js';
import {
  type Alert,
  type AlertStatus,
  ackAlert,
  alertOwner,
  getAlert,
  listAlertsByStatus,
  listOwnedSiteAlerts,
} from '../store/alerts.js';
import { listNasIdsOfReseller } from '../store/nas.js';

const newestFirst = (a: Alert, b: Alert) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : a.id < b.id ? 1 : -1);

/**
 * Whose alerts a caller may see: all (undefined) for an admin; for a reseller, those of its own
 * sites raised while it held them.
 */
async function visibleSites(
  principal: Principal,
): Promise<{ resellerId: string; sites: string[] } | undefined> {
  if (principal.role === 'admin') return undefined;
  if (principal.role === 'reseller' && principal.resellerId)
    return { resellerId: principal.resellerId, sites: await listNasIdsOfReseller(principal.resellerId) };
  throw forbidden('Resellers and admins only');
}

/**
 * `GET /alerts`: an admin sees every alert, a reseller those of its own sites (its NAS ids)
 * raised while it held them (a released name's next holder does not inherit its alerts),
 * newest first, `status` `active`, `acked` or `all`.
 */
export async function listAlerts(
  principal: Principal,
  status: AlertStatus | 'all',
  page: number,
  pageSize: number,
): Promise<Page<Alert>> {
  const statuses: AlertStatus[] = status === 'all' ? ['active', 'acked'] : [status];
  const scope = await visibleSites(principal);
  const lists = scope
    ? await Promise.all(
        scope.sites.map((site) =>
          listOwnedSiteAlerts(site, scope.resellerId, status === 'all' ? undefined : status),
        ),
      )
    : await Promise.all(statuses.map((s) => listAlertsByStatus(s)));
  return pageOf(lists.flat().sort(newestFirst), page, pageSize);
}

/**
 * `PUT /alerts/{id}/ack`: sets `acked`, `acked_by` (the caller: the token's subject, never a
 * client-given id) and `acked_at`; a second ack changes nothing and answers the alert as the
 * first ack left it. A reseller may ack only the alerts of its own sites (403 otherwise).
 */
export async function acknowledge(principal: Principal, id: string): Promise<Alert> {
  const alert = await getAlert(id);
  if (!alert) throw notFound('Alert');
  const scope = await visibleSites(principal);
  if (scope && (!scope.sites.includes(alert.site) || (await alertOwner(id)) !== scope.resellerId))
    throw forbidden('This alert is not about one of your sites');
  const acked = await ackAlert(id, principal.sub, principal.sub, clock.iso());
  if (!acked) throw notFound('Alert');
  return acked;
}
