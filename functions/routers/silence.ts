// The silence job's work: routers heard once and silent since, alerted once and texted to their reseller.

import { clock } from '../core/clock.js';
import { log } from '../core/log.js';
import { takeResellerSms } from '../sms/reseller-sms.js';
import { listOperators } from '../store/accounts.js';
import { raiseAlertOnce } from '../store/alerts.js';
import { markSilent, type RouterRecord, routersHeardBefore } from '../store/routers.js';
import { resolveSilence, SILENT_ALERT_TYPE } from './heard.js';
import { routerSettings } from './settings.js';

/**
 * The silence job: a router heard once and not since ROUTER_SILENT_AFTER_MIN raises one alert in
 * the console (for its first NAS id, the hotspot it was set up for) and one SMS to its reseller,
 * and is marked silent; hearing it again resolves the alert (functions/routers/heard.ts). It
 * reads only the routers-by-last-heard index below the threshold, and a router marked silent
 * leaves that index: each silence is found once. A router never heard is "jamais vu", not
 * silent; a revoked one is marked without an alert (it is expected to stop).
 */

/** An SMS in the GSM alphabet (one segment's worth of characters): accents and symbols dropped. */
const gsm7 = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .,:;'!?()+\-/]/g, '');

/** "14:02" (UTC, the time West African resellers mostly keep) of an ISO time. */
const hhmm = (iso: string) => iso.slice(11, 16);

export const silenceText = (router: Pick<RouterRecord, 'name' | 'nas_ids'>, sinceIso: string) =>
  gsm7(
    `Alerte WiFi: le routeur ${router.name} (${router.nas_ids[0] ?? ''}) est silencieux depuis ${hhmm(sinceIso)} UTC. Verifiez son courant et sa connexion.`,
  );

/** The reseller's own phone numbers (its operator accounts of role reseller). */
async function resellerPhones(resellerId: string): Promise<string[]> {
  return (await listOperators())
    .filter((a) => a.role === 'reseller' && a.reseller_id === resellerId)
    .map((a) => a.msisdn);
}

export async function flagSilentRouters(nowMs: number): Promise<{ silent: number; alerted: number }> {
  const { ROUTER_SILENT_AFTER_MIN } = routerSettings();
  const before = new Date(nowMs - ROUTER_SILENT_AFTER_MIN * 60_000).toISOString();
  let silent = 0;
  let alerted = 0;
  for (const router of await routersHeardBefore(before)) {
    const since = router.last_heard_at as string;
    const site = router.nas_ids[0];
    if (router.status !== 'active' || !site) {
      await markSilent(router, undefined);
      continue;
    }
    // The alert first, then the mark that names it: a router heard in between finds no mark, and
    // the alert just raised is resolved here instead.
    const alert = await raiseAlertOnce({
      type: SILENT_ALERT_TYPE,
      severity: 'warning',
      site,
      ts: clock.iso(),
      message: `Le routeur ${router.name} est silencieux depuis ${hhmm(since)} UTC (${since})`,
    });
    if (!(await markSilent(router, alert?.id))) {
      if (alert) await resolveSilence({ ...router, silent_alert_id: alert.id });
      continue;
    }
    silent++;
    // Another router of the hotspot is silent already: its alert and SMS said it.
    if (!alert) continue;
    alerted++;
    for (const to of await resellerPhones(router.reseller_id)) {
      try {
        // Within the reseller's SMS budgets (a reseller switching routers off and on texts no one at will).
        await (await takeResellerSms(router.reseller_id, to, nowMs)).send(silenceText(router, since));
      } catch (error) {
        // The alert is stored and shown; only the SMS failed (SNS retried already) or its budget was spent.
        log.error('router silence SMS not sent', {
          routerId: router.router_id,
          error: (error as Error).message,
        });
      }
    }
  }
  return { silent, alerted };
}
