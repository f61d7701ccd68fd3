import { clock } from '../core/clock.js';
import { forbidden, notFound } from '../core/errors.js';
import type { Page } from '../core/schemas.js';
import { pageOf } from '../core/schemas.js';
import type { Principal } from '../core/tokens.js';
import {
  type Alert,
  type AlertStatus,
  ackAlert,
  countActiveAlerts,
  countActiveSiteAlerts,
  getAlert,
  listAlertsByStatus,
  listSiteAlerts,
} from '../store/alerts.js';
import { listNasIdsOfReseller } from '../store/nas.js';

const newestFirst = (a: Alert, b: Alert) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : a.id < b.id ? 1 : -1);

/** The sites whose alerts a caller may see: all (undefined) for an admin, its own for a reseller. */
async function visibleSites(principal: Principal): Promise<string[] | undefined> {
  if (principal.role === 'admin') return undefined;
  if (principal.role === 'reseller' && principal.resellerId)
    return listNasIdsOfReseller(principal.resellerId);
  throw forbidden('Resellers and admins only');
}

/**
 * `GET /alerts`: an admin sees every alert, a reseller those of its own sites (its NAS ids),
 * newest first, `status` `active`, `acked` or `all`.
 */
export async function listAlerts(
  principal: Principal,
  status: AlertStatus | 'all',
  page: number,
  pageSize: number,
): Promise<Page<Alert>> {
  const statuses: AlertStatus[] = status === 'all' ? ['active', 'acked'] : [status];
  const sites = await visibleSites(principal);
  const lists = sites
    ? await Promise.all(sites.map((site) => listSiteAlerts(site, status === 'all' ? undefined : status)))
    : await Promise.all(statuses.map((s) => listAlertsByStatus(s)));
  return pageOf(lists.flat().sort(newestFirst), page, pageSize);
}

/** Active alerts the caller may see (the overview's `alerts_active`). */
export async function activeAlertCount(principal: Principal): Promise<number> {
  if (principal.role === 'reseller' && principal.resellerId) {
    const sites = await listNasIdsOfReseller(principal.resellerId);
    const counts = await Promise.all(sites.map((site) => countActiveSiteAlerts(site)));
    return counts.reduce((a, b) => a + b, 0);
  }
  return countActiveAlerts();
}

/**
 * `PUT /alerts/{id}/ack`: sets `acked`, `acked_by` (the body's user_id) and `acked_at`; a
 * second ack changes nothing and answers the alert as the first ack left it. A reseller may
 * ack only the alerts of its own sites (403 otherwise).
 */
export async function acknowledge(principal: Principal, id: string, userId: string): Promise<Alert> {
  const alert = await getAlert(id);
  if (!alert) throw notFound('Alert');
  const sites = await visibleSites(principal);
  if (sites && !sites.includes(alert.site)) throw forbidden('This alert is not about one of your sites');
  const acked = await ackAlert(id, userId, principal.sub, clock.iso());
  if (!acked) throw notFound('Alert');
  return acked;
}
