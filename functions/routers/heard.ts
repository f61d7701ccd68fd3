// A router's "last heard", from its own traffic, and its silence resolved when it comes back.

import { clock } from '../core/clock.js';
import { log } from '../core/log.js';
import { ackAlert, closeIncident } from '../store/alerts.js';
import { untilSettled } from '../store/retry.js';
import { getRouter, markHeard, type RouterRecord } from '../store/routers.js';

/**
 * "Last heard" of a router, from its own traffic: every login and accounting report the API
 * accepts from it (functions/radius/caller.ts judged it) counts, with the router record that
 * request read anyway. The record is written only when what was read is older than
 * HEARD_REFRESH_MS, so a busy router costs one write per interval, not one per packet; of
 * concurrent requests that read the same stale value, the conditional write lets one through.
 */
export const HEARD_REFRESH_MS = 5 * 60_000;

/** The alert type of a silent router (one open incident per hotspot: its first NAS id). */
export const SILENT_ALERT_TYPE = 'router_silent';

/** Who resolves a silence alert when the router is heard again (the alert's `acked_by`). */
export const RETURN_ACK = 'retour du routeur';

/** Is this read of the router recent enough that no write is needed? */
export const heardRecently = (router: Pick<RouterRecord, 'last_heard_at'>, nowMs: number): boolean =>
  router.last_heard_at !== undefined && Date.parse(router.last_heard_at) > nowMs - HEARD_REFRESH_MS;

/**
 * Notes that the router was heard at `nowMs`. `written` when this call wrote, `fresh` when no
 * write was needed, `raced` when another request wrote first. A router back from silence has its
 * alert resolved and its incident closed, so that its next silence raises a new one.
 */
async function noteHeardOnce(router: RouterRecord, nowMs: number): Promise<'written' | 'fresh' | 'raced'> {
  if (heardRecently(router, nowMs)) return 'fresh';
  const at = new Date(nowMs).toISOString();
  // A refusal is another request's write or the silence job's mark: read again, decide again.
  let read = router;
  return untilSettled(
    async () => {
      if (await markHeard(read, at)) {
        const wasSilent = read.silent_since ? { ...read } : undefined;
        // A record the process holds in memory (a router held for RADIUS_ROUTER_HOLD_S:
        // functions/radius/caller.ts) is then fresh for the next HEARD_REFRESH_MS: its next
        // reports write nothing here.
        Object.assign(router, { last_heard_at: at, silent_since: undefined, silent_alert_id: undefined });
        if (wasSilent) await resolveSilence(wasSilent);
        return 'written' as const;
      }
      const again = await getRouter(read.router_id);
      // Held records learn what another process wrote, so they do not try again on every packet.
      if (again)
        Object.assign(router, { last_heard_at: again.last_heard_at, silent_since: again.silent_since });
      if (!again || heardRecently(again, nowMs)) return 'raced' as const;
      read = again;
      return undefined;
    },
    () => 'raced' as const,
    3,
  );
}

/** Resolves the alert a silence raised (acknowledged by the router's return) and closes its incident. */
export async function resolveSilence(
  router: Pick<RouterRecord, 'router_id' | 'nas_ids' | 'silent_alert_id'>,
) {
  const site = router.nas_ids[0];
  if (router.silent_alert_id) await ackAlert(router.silent_alert_id, RETURN_ACK, RETURN_ACK, clock.iso());
  if (site && router.silent_alert_id) await closeIncident(site, SILENT_ALERT_TYPE);
  log.info('router heard again', { routerId: router.router_id, alertId: router.silent_alert_id });
}

/**
 * `noteHeardOnce` for a RADIUS route (the router `judge` accepted, or undefined for none): never
 * fails the request it rides on; a failure is logged and answered undefined.
 */
export async function noteHeard(
  router: RouterRecord | undefined,
  nowMs: number,
): Promise<'written' | 'fresh' | 'raced' | undefined> {
  if (!router) return undefined;
  try {
    return await noteHeardOnce(router, nowMs);
  } catch (error) {
    log.warn('router last-heard not recorded', {
      routerId: router.router_id,
      error: (error as Error).message,
    });
    return undefined;
  }
}
