// A country whose international link is cut, seen from RADIUS traffic alone.

import { resellerCountry } from '../billing/currency.js';
import type { Country } from '../core/currency.js';
import { log } from '../core/log.js';
import { ackAlert, closeIncident, raiseAlertOnce } from '../store/alerts.js';
import { linkStates, putLinkState } from '../store/link-states.js';
import { routersHeardSince } from '../store/routers.js';
import { type RadiusSession, silentSessions } from '../store/sessions.js';
import { radiusSettings } from './settings.js';

/**
 * A country whose international link is cut, seen from RADIUS traffic alone. A session open at
 * a router reports every RADIUS_INTERIM_S; one silent for a lease (no report since) is the
 * signal. A quiet night is not: its sessions end with a Stop (or the router's idle timeout,
 * which sends one) and nothing is left open, so no traffic is no signal. One router losing power
 * is not a cut either: its own NAS id alone goes silent. A cut is many NAS ids of one country
 * silent with sessions open while none of them is heard: at least RADIUS_LINK_CUT_MIN_NAS, and
 * at least RADIUS_LINK_CUT_PCT percent of that country's NAS ids with traffic (the silent ones
 * plus those heard within a lease). No history is needed to tell the night from a cut.
 *
 * While a country is cut, and for RADIUS_LINK_GRACE_S after, the sweep leaves its silent
 * sessions open (functions/radius/closing.ts): the sessions go on at the routers, with the
 * limits their login gave, and their reports come late (an in-country edge's journal, routers
 * resending); accounting takes them whenever they come (running totals, counted once).
 */

/** The alert type of a cut country (one open incident per country). */
const LINK_ALERT_TYPE = 'link_cut';
/** The alerts' `site` of a country: no hotspot's, so an admin's alert. */
const countrySite = (country: Country) => `country:${country}`;

/** The silent sessions read per run to judge the countries (the oldest first). */
const SAMPLE = 1000;

export interface LinkWatch {
  /** Countries whose silent sessions the sweep leaves open this run. */
  paused: Set<Country>;
  /** What changed this run (for the job's result and its metrics). */
  cut: Country[];
  restored: Country[];
  /** Countries cut now. */
  down: number;
  /** A reseller's country, read once a run. */
  countryOf: (resellerId: string) => Promise<Country>;
}

/**
 * Judges every country from the silent sessions and the routers heard within a lease, records
 * the changes (a state item, an alert raised or acknowledged) and answers which countries the
 * sweep pauses. `countryOf`: the country of a reseller, cached for the run.
 */
export async function watchLinks(nowMs: number): Promise<LinkWatch> {
  const s = radiusSettings();
  const leaseStart = new Date(nowMs - s.RADIUS_LEASE_S * 1000).toISOString();
  const nowIso = new Date(nowMs).toISOString();
  const countries = new Map<string, Promise<Country>>();
  const countryOf = (resellerId: string) => {
    const known = countries.get(resellerId);
    if (known) return known;
    const read = resellerCountry(resellerId);
    countries.set(resellerId, read);
    return read;
  };
  const [silent, heard, states] = await Promise.all([
    silentSessions(leaseStart, SAMPLE),
    routersHeardSince(leaseStart),
    linkStates(),
  ]);
  const live = new Map<Country, Set<string>>();
  for (const router of heard) {
    const country = await countryOf(router.reseller_id);
    const set = live.get(country) ?? new Set<string>();
    for (const nas of router.nas_ids) set.add(nas);
    live.set(country, set);
  }
  const quiet = new Map<Country, { nas: Set<string>; since: string }>();
  for (const session of silent as RadiusSession[]) {
    const country = await countryOf(session.reseller_id);
    // A NAS heard within a lease is alive: its silent session only lost its Stop.
    if (live.get(country)?.has(session.nas_id)) continue;
    const entry = quiet.get(country) ?? { nas: new Set<string>(), since: session.last_report_at };
    entry.nas.add(session.nas_id);
    if (session.last_report_at > entry.since) entry.since = session.last_report_at;
    quiet.set(country, entry);
  }
  const byCountry = new Map(states.map((st) => [st.country, st]));
  const result: LinkWatch = { paused: new Set(), cut: [], restored: [], down: 0, countryOf };
  const judged = new Set<Country>([
    ...quiet.keys(),
    ...states.filter((st) => st.status === 'cut').map((st) => st.country),
  ]);
  for (const country of judged) {
    const silentNas = quiet.get(country)?.nas.size ?? 0;
    const liveNas = live.get(country)?.size ?? 0;
    const isCut =
      silentNas >= s.RADIUS_LINK_CUT_MIN_NAS &&
      silentNas * 100 >= s.RADIUS_LINK_CUT_PCT * (silentNas + liveNas);
    const before = byCountry.get(country);
    if (isCut && before?.status !== 'cut') {
      const since = quiet.get(country)?.since ?? nowIso;
      const alert = await raiseAlertOnce({
        type: LINK_ALERT_TYPE,
        severity: 'critical',
        site: countrySite(country),
        ts: nowIso,
        message: `${country}: ${silentNas} hotspots silencieux avec des sessions ouvertes depuis ${since.slice(11, 16)} UTC (liaison internationale coupée ?)`,
      });
      await putLinkState({
        country,
        status: 'cut',
        since,
        detected_at: nowIso,
        silent_nas: silentNas,
        live_nas: liveNas,
        ...(alert ? { alert_id: alert.id } : {}),
      });
      result.cut.push(country);
      log.warn('country link cut', { country, silentNas, liveNas, since });
    } else if (!isCut && before?.status === 'cut') {
      await putLinkState({
        ...before,
        status: 'up',
        restored_at: nowIso,
        silent_nas: silentNas,
        live_nas: liveNas,
      });
      if (before.alert_id) await ackAlert(before.alert_id, LINK_RETURN_ACK, LINK_RETURN_ACK, nowIso);
      await closeIncident(countrySite(country), LINK_ALERT_TYPE);
      result.restored.push(country);
      log.info('country link back', { country, silentNas, liveNas });
    }
  }
  const after = await linkStates();
  for (const st of after) {
    const inGrace =
      st.restored_at !== undefined && Date.parse(st.restored_at) + s.RADIUS_LINK_GRACE_S * 1000 > nowMs;
    if (st.status === 'cut' || inGrace) result.paused.add(st.country);
    if (st.status === 'cut') result.down += 1;
  }
  return result;
}

/** Who acknowledges a cut's alert when the country's traffic comes back. */
const LINK_RETURN_ACK = 'retour de la liaison';
