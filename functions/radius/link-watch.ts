// A country whose international link is cut, seen from RADIUS traffic alone.

import * as z from 'zod/mini';
import { resellerCountry } from '../billing/currency.js';
import { defineSettings } from '../core/config.js';
import { COUNTRIES, type Country } from '../core/currency.js';
import { log } from '../core/log.js';
import { intSetting } from '../core/schemas.js';
import { ackAlert, closeIncident, raiseAlertOnce } from '../store/alerts.js';
import { type EdgeSync, edgeSyncs } from '../store/edge-syncs.js';
import { batchGet } from '../store/entity.js';
import {
  type LinkState,
  type LinkUsual,
  linkStates,
  linkUsual,
  putLinkState,
  putLinkUsual,
} from '../store/link-states.js';
import { Nas } from '../store/nas.js';
import { routersHeardSince } from '../store/routers.js';
import { type RadiusSession, silentSessions } from '../store/sessions.js';
import { SiteEntity } from '../store/sites.js';
import { radiusSettings } from './settings.js';

/**
 * A country whose international link is cut, told from a power cut, from the region's side.
 *
 * A session open at a router reports every RADIUS_INTERIM_S; one silent for a lease (no report
 * since) is the signal. A quiet night leaves nothing silent (sessions end with a Stop, or the
 * router's idle timeout sends one), and one router losing power silences its own NAS id only.
 * But a town's power cut, at night when few hotspots carry sessions, can silence most of the
 * ones that do, and so can one reseller unplugging its own hotspots on purpose. So a cut is
 * declared only on what a cut alone shows, all of it:
 * - **enough silence**: at least RADIUS_LINK_CUT_MIN_NAS NAS ids silent with sessions open and
 *   none of them heard, and they are at least RADIUS_LINK_CUT_PCT percent of the country's NAS
 *   ids with traffic, counted as the larger of those heard now plus the silent ones and the
 *   usual number at this hour of the day (learnt here, run after run): at night a handful of
 *   silent hotspots is measured against the night's usual, not against the few still heard;
 * - **spread**: the silent NAS ids belong to at least RADIUS_LINK_CUT_MIN_SPREAD resellers and
 *   as many areas (a site's city; a reseller's own hotspot counts as the reseller's area): one
 *   reseller's hotspots, or one town's, never are a national cut;
 * - **the edges**: an in-country edge syncs with the region every minute while the link is up
 *   (functions/store/edge-syncs.ts). While one of the country's edges still syncs, the link is
 *   up, whatever the routers do.
 *
 * A cut ends when it ends: when one of the country's edges syncs again after the cut was
 * declared, or when RADIUS_LINK_BACK_PCT percent of the NAS ids silent at the cut are heard
 * again (routers resend once they reach the region), or when the silence is no longer enough.
 * The sessions left open during the cut never keep it going: after a cut, only a silence begun
 * after its end counts towards a new one.
 *
 * While a country is cut, and for RADIUS_LINK_GRACE_S after, the sweep leaves its silent
 * sessions open (functions/radius/closing.ts): the sessions go on at the routers, with the
 * limits their login gave, and their reports come late (an in-country edge's journal, routers
 * resending); accounting takes them whenever they come (running totals, counted once).
 */
export const linkSettings = defineSettings(
  z.object({
    /** Distinct resellers, and distinct areas, the silent NAS ids of a cut belong to. */
    RADIUS_LINK_CUT_MIN_SPREAD: z._default(intSetting, 3),
    /** Percent of the NAS ids silent at a cut that, heard again, end it. */
    RADIUS_LINK_BACK_PCT: z._default(intSetting, 25),
    /** Seconds without a sync after which an edge is silent (it syncs every EDGE_SYNC_S, 60 s). */
    RADIUS_LINK_EDGE_SILENT_S: z._default(intSetting, 300),
  }),
);

/** The alert type of a cut country (one open incident per country). */
const LINK_ALERT_TYPE = 'link_cut';
/** The alerts' `site` of a country: no hotspot's, so an admin's alert. */
const countrySite = (country: Country) => `country:${country}`;

/** The silent sessions read per run to judge the countries (the oldest first). */
const SAMPLE = 1000;
/** Keys per BatchGetItem (DynamoDB's limit). */
const BATCH = 100;
/** Weight of a run's count in the usual one (about two days to follow a change, 12 runs an hour). */
const USUAL_WEIGHT = 0.1;

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

/** A country's NAS ids silent with sessions open (their resellers), and when the silence began. */
interface Silence {
  nas: Map<string, string>;
  since: string;
}

/**
 * Judges every country from the silent sessions, the routers heard within a lease and the
 * edges' syncs, records the changes (a state item, an alert raised or acknowledged) and the
 * usual traffic, and answers which countries the sweep pauses.
 */
export async function watchLinks(nowMs: number): Promise<LinkWatch> {
  const s = { ...radiusSettings(), ...linkSettings() };
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
  const [silent, heard, states, usual, syncs] = await Promise.all([
    silentSessions(leaseStart, SAMPLE),
    routersHeardSince(leaseStart),
    linkStates(),
    linkUsual(),
    edgeSyncs(),
  ]);
  const byCountry = new Map(states.map((st) => [st.country, st]));
  // NAS ids heard within a lease, by country, with when their router was last heard.
  const live = new Map<Country, Map<string, string>>();
  for (const router of heard) {
    const country = await countryOf(router.reseller_id);
    const set = live.get(country) ?? new Map<string, string>();
    for (const nas of router.nas_ids) set.set(nas, router.last_heard_at ?? '');
    live.set(country, set);
  }
  const quiet = new Map<Country, Silence>();
  for (const session of silent as RadiusSession[]) {
    const country = await countryOf(session.reseller_id);
    // A NAS heard within a lease is alive: its silent session only lost its Stop.
    if (live.get(country)?.has(session.nas_id)) continue;
    // Left open by a cut that ended since: it is that cut's, not the start of a new one.
    const before = byCountry.get(country);
    if (before?.status === 'up' && before.restored_at && session.last_report_at <= before.restored_at)
      continue;
    const entry = quiet.get(country) ?? { nas: new Map<string, string>(), since: session.last_report_at };
    entry.nas.set(session.nas_id, session.reseller_id);
    if (session.last_report_at > entry.since) entry.since = session.last_report_at;
    quiet.set(country, entry);
  }
  const edges = await edgesByCountry(syncs, countryOf);
  const hour = new Date(nowMs).getUTCHours();

  const result: LinkWatch = { paused: new Set(), cut: [], restored: [], down: 0, countryOf };
  const judged = new Set<Country>([
    ...quiet.keys(),
    ...states.filter((st) => st.status === 'cut').map((st) => st.country),
  ]);
  for (const country of judged) {
    const silence = quiet.get(country);
    const silentNas = silence?.nas.size ?? 0;
    const liveNas = live.get(country)?.size ?? 0;
    const usualNow = usual?.by_country[country]?.[hour] ?? 0;
    const enough =
      silentNas >= s.RADIUS_LINK_CUT_MIN_NAS &&
      silentNas * 100 >= s.RADIUS_LINK_CUT_PCT * Math.max(silentNas + liveNas, usualNow);
    const countryEdges = edges.get(country) ?? [];
    const before = byCountry.get(country);
    if (before?.status === 'cut') {
      const detected = before.detected_at;
      const edgeBack = countryEdges.some((e) => e.synced_at > detected);
      const heardAgain = [...(live.get(country)?.values() ?? [])].filter((at) => at > detected).length;
      const back =
        edgeBack || heardAgain * 100 >= s.RADIUS_LINK_BACK_PCT * Math.max(1, before.silent_nas) || !enough;
      if (back) {
        await restore(before, nowIso, silentNas, liveNas);
        result.restored.push(country);
        log.info('country link back', { country, silentNas, liveNas, heardAgain, edgeBack });
      }
      continue;
    }
    if (!enough || !silence) continue;
    const syncing = countryEdges.filter(
      (e) => nowMs - Date.parse(e.synced_at) < s.RADIUS_LINK_EDGE_SILENT_S * 1000,
    );
    if (syncing.length) {
      log.info('country silent, its edge syncing: no cut', { country, silentNas, edges: syncing.length });
      continue;
    }
    const resellers = new Set(silence.nas.values()).size;
    if (resellers < s.RADIUS_LINK_CUT_MIN_SPREAD) continue;
    const areas = (await areasOf(silence)).size;
    if (areas < s.RADIUS_LINK_CUT_MIN_SPREAD) {
      log.info('country silent in one place: no cut', { country, silentNas, resellers, areas });
      continue;
    }
    await declare(country, silence, nowIso, silentNas, liveNas, usualNow);
    result.cut.push(country);
    log.warn('country link cut', {
      country,
      silentNas,
      liveNas,
      usualNow,
      resellers,
      areas,
      since: silence.since,
    });
  }

  const after = await linkStates();
  for (const st of after) {
    const inGrace =
      st.restored_at !== undefined && Date.parse(st.restored_at) + s.RADIUS_LINK_GRACE_S * 1000 > nowMs;
    if (st.status === 'cut' || inGrace) result.paused.add(st.country);
    if (st.status === 'cut') result.down += 1;
  }
  await learnUsual(
    usual,
    hour,
    nowIso,
    live,
    quiet,
    new Set(after.filter((st) => st.status === 'cut').map((st) => st.country)),
  );
  return result;
}

/** A cut declared: its alert (one per country while it lasts) and its state. */
async function declare(
  country: Country,
  silence: Silence,
  nowIso: string,
  silentNas: number,
  liveNas: number,
  usualNow: number,
): Promise<void> {
  const alert = await raiseAlertOnce({
    type: LINK_ALERT_TYPE,
    severity: 'critical',
    site: countrySite(country),
    ts: nowIso,
    message: `${country}: ${silentNas} hotspots silencieux avec des sessions ouvertes depuis ${silence.since.slice(11, 16)} UTC, ${Math.round(usualNow)} d'habitude à cette heure (liaison internationale coupée ?)`,
  });
  await putLinkState({
    country,
    status: 'cut',
    since: silence.since,
    detected_at: nowIso,
    silent_nas: silentNas,
    live_nas: liveNas,
    ...(alert ? { alert_id: alert.id } : {}),
  });
}

/** A cut ended: its state, its alert acknowledged, its incident closed. */
async function restore(before: LinkState, nowIso: string, silentNas: number, liveNas: number): Promise<void> {
  await putLinkState({
    ...before,
    status: 'up',
    restored_at: nowIso,
    silent_nas: silentNas,
    live_nas: liveNas,
  });
  if (before.alert_id) await ackAlert(before.alert_id, LINK_RETURN_ACK, LINK_RETURN_ACK, nowIso);
  await closeIncident(countrySite(before.country), LINK_ALERT_TYPE);
}

/** Each country's edges, by the countries of the resellers they serve. */
async function edgesByCountry(
  syncs: EdgeSync[],
  countryOf: (resellerId: string) => Promise<Country>,
): Promise<Map<Country, EdgeSync[]>> {
  const out = new Map<Country, EdgeSync[]>();
  for (const sync of syncs) {
    const served = new Set(await Promise.all(sync.reseller_ids.map(countryOf)));
    for (const country of served) out.set(country, [...(out.get(country) ?? []), sync]);
  }
  return out;
}

/** A city as people type it, folded: `Bouaké ` and `bouake` are one area. */
const folded = (city: string) =>
  city.normalize('NFD').replace(/\p{M}/gu, '').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The areas of the silent NAS ids: a site's city; a reseller's own hotspot (no city recorded)
 * the reseller's own area.
 */
// Access: BatchGetItem NAS#<nas_id> (100 a call), then RESELLER#<id>/SITE#<nnn> of the sites.
async function areasOf(silence: Silence): Promise<Set<string>> {
  const ids = [...silence.nas.keys()];
  const areas = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const chunk = ids.slice(i, i + BATCH);
    const records = await batchGet(chunk.map((nas_id) => [Nas, { nas_id }] as const));
    const sites = records.filter((n) => n?.kind === 'site' && n.site_number !== undefined);
    const cities = sites.length
      ? await batchGet(
          sites.map(
            (n) =>
              [SiteEntity, { reseller_id: n?.reseller_id ?? '', site_number: n?.site_number ?? 0 }] as const,
          ),
        )
      : [];
    records.forEach((n, j) => {
      const site = n?.kind === 'site' ? cities[sites.indexOf(n)] : undefined;
      areas.add(site?.city ? `city:${folded(site.city)}` : `reseller:${silence.nas.get(chunk[j] as string)}`);
    });
  }
  return areas;
}

/**
 * Learns this hour's usual number of NAS ids with traffic per country (heard within a lease, or
 * silent with sessions open), every country of the platform, a cut one excepted (its count is
 * the cut's, not the hour's).
 */
async function learnUsual(
  usual: LinkUsual | undefined,
  hour: number,
  nowIso: string,
  live: Map<Country, Map<string, string>>,
  quiet: Map<Country, Silence>,
  cut: Set<Country>,
): Promise<void> {
  const byCountry: LinkUsual['by_country'] = { ...(usual?.by_country ?? {}) };
  for (const country of COUNTRIES) {
    if (cut.has(country)) continue;
    const seen = new Set([...(live.get(country)?.keys() ?? []), ...(quiet.get(country)?.nas.keys() ?? [])])
      .size;
    const hours = [...(byCountry[country] ?? Array.from({ length: 24 }, () => null))];
    const old = hours[hour];
    hours[hour] = old === null || old === undefined ? seen : old + USUAL_WEIGHT * (seen - old);
    byCountry[country] = hours;
  }
  await putLinkUsual({ by_country: byCountry, updated_at: nowIso });
}

/** Who acknowledges a cut's alert when the country's traffic comes back. */
const LINK_RETURN_ACK = 'retour de la liaison';
